import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A receiver of notifications on loopback (port 0): it keeps what it got, and answers each request
// as `answer` says for its number (1 for the first): a status, and headers, or never.

export interface Received {
  path: string;
  contentType: string | undefined;
  body: string;
}

export interface Receiver {
  /** Its URL, with a secret token in the path as a Slack or Teams webhook has. */
  url: string;
  token: string;
  received: Received[];
  close(): Promise<void>;
}

/** A status (and headers) to answer with, or 'hang': the request is never answered (the receiver takes it and says nothing). */
export type Answer = (count: number) => { status: number; headers?: Record<string, string> } | 'hang';

export async function startReceiver(answer: Answer = () => ({ status: 200 })): Promise<Receiver> {
  const received: Received[] = [];
  const token = 'T0SECRET/B0TOKEN/xoxSuperSecret123';
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', contentType: req.headers['content-type'], body: Buffer.concat(chunks).toString('utf8') });
      const answered = answer(received.length);
      if (answered === 'hang') return;
      const { status, headers } = answered;
      res.writeHead(status, { 'content-type': 'text/plain', ...headers });
      res.end(status < 300 ? 'ok' : 'not now');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/services/${token}`,
    token,
    received,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A loopback port where nothing listens (a server opened on port 0 and closed). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
