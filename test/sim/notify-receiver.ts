import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Receiver } from './history.js';

// The receiver of `tds check --notify` in a simulated run: a loopback HTTP server of the simulator's, told
// before each check step how to answer (204, 500, a reset after the body, or never), and holding the POST
// it gets when the step kills tds during it. It keeps every message it got and how it answered.

/** A status change as a notification carries it. */
export interface NotifiedChange {
  table: string;
  check: string;
  from: string | null;
  to: string;
}

export interface Received {
  changes: NotifiedChange[];
  /** how the receiver answered: 2xx (the message was taken and tds was told), or not */
  answered: 'ok' | 'not';
}

export class NotifyReceiver {
  private mode: Receiver = 'ok';
  private holdForKill = false;
  private received: Received[] = [];
  private readonly open = new Set<ServerResponse>();
  private onHeld: (() => void) | undefined;

  private constructor(private readonly server: Server) {}

  static async start(): Promise<NotifyReceiver> {
    const server = createServer();
    const receiver = new NotifyReceiver(server);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => receiver.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/notify`;
  }

  /** How the next step's POSTs are answered; with `holdForKill`, a POST is held and `held` resolves. */
  script(mode: Receiver, holdForKill: boolean): { held: Promise<void> } {
    this.mode = mode;
    this.holdForKill = holdForKill;
    this.received = [];
    return { held: new Promise<void>((resolve) => (this.onHeld = resolve)) };
  }

  /** The messages of the step, and the held or hanging POSTs ended (a receiver that went away). */
  finish(): Received[] {
    for (const res of this.open) res.destroy();
    this.open.clear();
    this.onHeld = undefined;
    return this.received;
  }

  close(): Promise<void> {
    this.finish();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let changes: NotifiedChange[] = [];
      try {
        changes = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { changes?: NotifiedChange[] }).changes ?? [];
      } catch {
        changes = [{ table: '?', check: 'not JSON', from: null, to: '?' }];
      }
      const entry: Received = { changes, answered: 'not' };
      this.received.push(entry);
      if (this.holdForKill || this.mode === 'hang') {
        this.open.add(res);
        if (this.holdForKill) this.onHeld?.();
        return;
      }
      if (this.mode === 'reset') return void req.socket.destroy();
      if (this.mode === '500') return void res.writeHead(500).end('receiver down');
      entry.answered = 'ok';
      res.writeHead(204).end();
    });
  }
}
