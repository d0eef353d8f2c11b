import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { DemoStep, DemoTour } from './demo-step.js';

// `tds check` in the demo: checks that pass, leads whose Enrich fails once the emulator's actions have
// run on them, the failure rate past its threshold (exit 9), and the message a local receiver got.

const CHECKS = `tables:
  Leads:
    checks:
      - rows: {min: 1}
      - failure_rate: {column: Enrich, max: 0.1, since: 1h}
      - stuck: {column: Enrich, max_age: 1h}
`;

/** Leads whose Email has no domain: their Enrich (the domain of the Email) fails. */
const BAD_LEADS = { rows: ['nobody', 'n/a', 'ask later', 'tbd', '-'].map((email, i) => ({ cells: { name: `Lead ${i + 1}`, email } })) };

/** A receiver of notifications on loopback, as a Slack or Teams incoming webhook would be: it keeps what it got. */
class Receiver {
  readonly bodies: string[] = [];
  private server?: Server;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        this.bodies.push(body);
        res.end('ok');
      });
    });
    this.server.unref();
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks/demo`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

export function checkSteps({ dir, origin, tableIds }: DemoTour): DemoStep[] {
  const receiver = new Receiver();
  let url = '';
  const rowsRoute = `${origin}/_emulator/tables/${tableIds.Leads}/rows`;
  /** `tds check` to the receiver (its URL known once it listens: `args` is read when the step runs). */
  const check = (title: string, expectCode: number, prepare?: () => Promise<void>): DemoStep => ({
    title,
    ...(prepare ? { prepare } : {}),
    display: 'tds check --notify http://127.0.0.1:PORT/hooks/demo --format table',
    get args() {
      return ['check', '--notify', url, '--format', 'table'];
    },
    expectCode,
  });
  return [
    check('checks for cron and CI, declared in tds-checks.yaml; a local receiver stands in for a Slack channel. All pass', 0, async () => {
      await writeFile(join(dir, 'tds-checks.yaml'), CHECKS);
      url = await receiver.start();
    }),
    {
      title: "five leads without a domain in their Email arrive, and the emulator's Enrich runs on them",
      display: `curl -s -X POST ${rowsRoute} -d '${JSON.stringify(BAD_LEADS)}'; curl -s -X POST ${origin}/_emulator/actions/finish`,
      run: async () => {
        const added = await fetch(rowsRoute, { method: 'POST', body: JSON.stringify(BAD_LEADS) });
        await added.arrayBuffer();
        const finished = await fetch(`${origin}/_emulator/actions/finish`, { method: 'POST' });
        await finished.arrayBuffer();
        return { code: added.status === 201 && finished.ok ? 0 : 1, stdout: `${added.status} ${finished.status}\n`, stderr: '' };
      },
    },
    check('the failure rate crosses its threshold: the check fails (exit 9), and the receiver is told once', 9),
    {
      title: 'the message the receiver got (its `text` reads as it is in Slack or Teams)',
      display: 'cat received.json',
      run: async () => {
        await receiver.close();
        const last = receiver.bodies.at(-1);
        const stdout = last ? `${JSON.stringify(JSON.parse(last), null, 2)}\n` : '(nothing)\n';
        return { code: receiver.bodies.length === 1 ? 0 : 1, stdout, stderr: '' };
      },
    },
  ];
}
