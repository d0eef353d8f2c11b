import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

// A real HTTP server per test that answers by request count (stripe-node style).

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export type Reply = { status: number; headers?: Record<string, string>; body?: unknown } | { action: 'reset' } | { action: 'stall' };

export interface TestServer {
  origin: string;
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startTestServer(answer: (request: RecordedRequest, index: number) => Reply | Promise<Reply>): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      requests.push(recorded);
      void Promise.resolve(answer(recorded, requests.length - 1)).then((reply) => send(res, reply));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    baseUrl: `${origin}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function send(res: ServerResponse, reply: Reply): void {
  if ('action' in reply) {
    if (reply.action === 'reset') res.socket?.destroy();
    return; // stall: never answer
  }
  const body = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {});
  res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
  res.end(body);
}

export const json = (status: number, body: unknown, headers?: Record<string, string>): Reply => ({ status, body, headers });

export const apiError = (status: number, message: string, headers?: Record<string, string>): Reply =>
  json(status, { statusCode: status, error: 'API Error', message }, headers);

export const WORKSPACES = {
  workspaces: [
    { id: 'ws_1', name: 'Sales', tableCount: 2 },
    { id: 'ws-2', name: 'Marketing', tableCount: 1 },
  ],
  total: 2,
};

export const TABLES = {
  tables: [
    { id: 't1', name: 'Leads', emoji: ':rocket:', workspaceId: 'ws_1', workspaceName: 'Sales', rowCount: 250, fieldCount: 18 },
    { id: 't2', name: 'Contacts', emoji: null, workspaceId: 'ws_1', workspaceName: 'Sales', rowCount: 10, fieldCount: 3 },
    { id: 't3', name: 'Contacts', emoji: null, workspaceId: 'ws-2', workspaceName: 'Marketing', rowCount: 10, fieldCount: 3 },
  ],
  total: 3,
};
