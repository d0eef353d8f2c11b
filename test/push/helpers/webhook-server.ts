import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface SeenRequest {
  /** 1-based arrival order */
  n: number;
  method: string;
  /** the posted objects (POST) */
  objects: unknown[];
  /** the body as sent */
  text: string;
  bytes: number;
}

export type Answer =
  | { status: number; headers?: Record<string, string>; body?: unknown; delayMs?: number }
  /** destroy the socket after reading the body: the request arrived, no answer came */
  | 'reset'
  /** read the body and never answer */
  | 'stall';

export interface TestWebhook {
  url: string;
  requests: SeenRequest[];
  /** most requests that were open at the same time */
  maxOpen: number;
  close(): Promise<void>;
}

/** A webhook stand-in on 127.0.0.1 that answers each request as `answer` says (stripe-node style). */
export async function testWebhook(answer: (request: SeenRequest) => Answer | Promise<Answer>): Promise<TestWebhook> {
  const sockets = new Set<Socket>();
  let open = 0;
  const state: TestWebhook = { url: '', requests: [], maxOpen: 0, close: async () => undefined };
  const server = createServer(async (req: IncomingMessage, res) => {
    open += 1;
    state.maxOpen = Math.max(state.maxOpen, open);
    res.on('close', () => (open -= 1));
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const request: SeenRequest = {
      n: state.requests.length + 1,
      method: req.method ?? '',
      objects: body.length ? (JSON.parse(body.toString()) as unknown[]) : [],
      text: body.toString(),
      bytes: body.length,
    };
    state.requests.push(request);
    const reply = await answer(request);
    if (reply === 'reset') return req.socket.destroy();
    if (reply === 'stall') return;
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    const text = reply.body === undefined ? '' : JSON.stringify(reply.body);
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    res.end(req.method === 'HEAD' ? undefined : text);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  state.url = `http://127.0.0.1:${port}/v1/webhook/wh_test_secret_0123456789`;
  state.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return state;
}

export const accepted = (request: SeenRequest): Answer => ({
  status: 200,
  body: { success: true, message: `${request.objects.length} records are being processed` },
});
