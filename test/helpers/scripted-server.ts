import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

// The scripted test server, beside the emulator fixture (stripe-node's getTestServer): a real HTTP server
// on 127.0.0.1, port 0, for the answers the emulator never gives. A test scripts each answer from the
// request and its number: a status with headers and a body, after a delay; a connection destroyed; a
// request never answered (hang); or a response the script writes itself (a body that drips or never ends).
// The server keeps a log of what it received; close() ends every request still hanging.

export interface ReceivedRequest {
  /** 1 for the first request */
  n: number;
  method: string;
  /** path and query, as sent */
  url: string;
  headers: IncomingHttpHeaders;
  /** the body as text */
  body: string;
  bytes: number;
  /** Date.now() when the body had arrived */
  at: number;
  /** resolves when the response's connection closed: answered in full, destroyed, or dropped by the client */
  closed: Promise<void>;
}

/** A string body is sent as it is, any other as JSON; content-type application/json unless `headers` say otherwise. */
export interface StatusReply {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  delayMs?: number;
}

export type Reply =
  | StatusReply
  /** the socket destroyed once the body arrived: the request was sent, no answer came */
  | 'destroy'
  /** the body read and never answered (until close) */
  | 'hang'
  /** the script writes the response itself */
  | { write: (res: ServerResponse) => void };

export type Script = (request: ReceivedRequest) => Reply | Promise<Reply>;

export interface ScriptedServer {
  /** http://127.0.0.1:PORT */
  origin: string;
  /** the log, in order of arrival */
  requests: ReceivedRequest[];
  /** the most requests open at one time */
  maxOpen: number;
  /** TCP connections accepted */
  connections: number;
  close(): Promise<void>;
}

export async function startScriptedServer(script: Script, options: { keepAliveTimeout?: number } = {}): Promise<ScriptedServer> {
  const sockets = new Set<Socket>();
  let open = 0;
  const server = createServer(options, async (req, res) => {
    open += 1;
    scripted.maxOpen = Math.max(scripted.maxOpen, open);
    const closed = new Promise<void>((resolve) => res.on('close', resolve));
    void closed.then(() => (open -= 1));
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const request: ReceivedRequest = {
      n: scripted.requests.length + 1,
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: body.toString('utf8'),
      bytes: body.length,
      at: Date.now(),
      closed,
    };
    scripted.requests.push(request);
    await answer(res, await script(request), req.method === 'HEAD');
  });
  server.on('connection', (socket: Socket) => {
    scripted.connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const scripted: ScriptedServer = {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: [],
    maxOpen: 0,
    connections: 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  return scripted;
}

async function answer(res: ServerResponse, reply: Reply, head: boolean): Promise<void> {
  if (reply === 'destroy') return void res.socket?.destroy();
  if (reply === 'hang') return;
  if ('write' in reply) return reply.write(res);
  if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
  const text = reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
  res.end(head ? undefined : text);
}

/** A JSON answer. */
export const json = (status: number, body: unknown, headers?: Record<string, string>): StatusReply => ({ status, body, headers });

/** An error answer in the service's shape (docs/service-api.md). */
export const apiError = (status: number, message: string, headers?: Record<string, string>): StatusReply =>
  json(status, { statusCode: status, error: 'API Error', message }, headers);

/** A loopback port where nothing listens (a server opened on port 0 and closed). */
export async function closedPort(): Promise<number> {
  const server = await startScriptedServer(() => 'hang');
  await server.close();
  return Number(new URL(server.origin).port);
}

/** A webhook URL's path on the server (its last segment the secret, as the service's is). */
export const WEBHOOK_PATH = '/v1/webhook/wh_test_secret_0123456789';

/** The objects a webhook POST carried. */
export const postedObjects = (request: ReceivedRequest): unknown[] => (request.bytes ? (JSON.parse(request.body) as unknown[]) : []);

/** The webhook's answer to a batch it takes. */
export const accepted = (request: ReceivedRequest): StatusReply =>
  json(200, { success: true, message: `${postedObjects(request).length} records are being processed` });
