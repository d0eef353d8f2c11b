import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';

// A network between tds and the emulator on loopback: certificates made with `openssl`, a TLS front
// of the emulator, and a CONNECT proxy that records its tunnels. Names under .test (RFC 2606) resolve
// nowhere; the proxy alone connects them, to 127.0.0.1.

const CONFIG = `[req]
distinguished_name = dn
prompt = no
[dn]
CN = tds test
[ca_ext]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
[service]
subjectAltName = DNS:service.test
[other]
subjectAltName = DNS:other.test
[ca]
default_ca = test_ca
[test_ca]
dir = .
database = index.txt
new_certs_dir = .
serial = serial
certificate = ca.pem
private_key = ca.key
default_md = sha256
policy = any
[any]
commonName = supplied
`;

/** PEM texts: one key for every server certificate; `caFile` is the CA's certificate on disk (NODE_EXTRA_CA_CERTS). */
export interface Certificates {
  key: string;
  caFile: string;
  /** for service.test, signed by the CA */
  service: string;
  /** for other.test, signed by the CA */
  other: string;
  /** for service.test, self-signed */
  selfSigned: string;
  /** for service.test, signed by the CA, valid for one day in 2020 */
  expired: string;
  remove(): void;
}

export function makeCertificates(): Certificates {
  const dir = mkdtempSync(join(tmpdir(), 'tds-certs-'));
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  writeFileSync(join(dir, 'c.cnf'), CONFIG);
  writeFileSync(join(dir, 'index.txt'), '');
  writeFileSync(join(dir, 'serial'), '01\n');
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=tds test CA',
    '-config',
    'c.cnf',
    '-extensions',
    'ca_ext',
  );
  openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'server.key');
  openssl('req', '-new', '-key', 'server.key', '-subj', '/CN=service.test', '-out', 'server.csr', '-config', 'c.cnf');
  const sign = (section: string, serial: string, out: string) =>
    openssl(
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-set_serial',
      serial,
      '-days',
      '2',
      '-extfile',
      'c.cnf',
      '-extensions',
      section,
      '-out',
      out,
    );
  sign('service', '2', 'service.pem');
  sign('other', '3', 'other.pem');
  openssl(
    'req',
    '-x509',
    '-key',
    'server.key',
    '-subj',
    '/CN=service.test',
    '-days',
    '2',
    '-config',
    'c.cnf',
    '-extensions',
    'service',
    '-out',
    'self.pem',
  );
  const past = ['-startdate', '20200101000000Z', '-enddate', '20200102000000Z'];
  openssl(
    'ca',
    '-config',
    'c.cnf',
    '-batch',
    ...past,
    '-in',
    'server.csr',
    '-out',
    'expired.pem',
    '-extensions',
    'service',
    '-extfile',
    'c.cnf',
    '-notext',
  );
  const read = (name: string) => readFileSync(join(dir, name), 'utf8');
  return {
    key: read('server.key'),
    caFile: join(dir, 'ca.pem'),
    service: read('service.pem'),
    other: read('other.pem'),
    selfSigned: read('self.pem'),
    expired: read('expired.pem'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A loopback server that tests point tds at, and what it saw. */
export interface Front {
  port: number;
  /** TCP connections accepted (a request tried again opens another one when the first failed) */
  connections: number;
  close(): Promise<void>;
}

/** A TLS front of an HTTP server on 127.0.0.1:`upstreamPort`, with `cert` (and Certificates.key). */
export async function tlsFront(upstreamPort: number, key: string, cert: string): Promise<Front> {
  const sockets = new Set<Socket>();
  const server = createTlsServer({ key, cert }, (socket) => relay(socket, Buffer.alloc(0), upstreamPort, sockets));
  const front = { port: 0, connections: 0, close: () => closeServer(server, sockets) };
  server.on('connection', (socket: Socket) => {
    front.connections += 1;
    sockets.add(socket);
  });
  front.port = await listen(server);
  return front;
}

/** One CONNECT of the proxy: the target asked for and the Proxy-Authorization header sent. */
export interface Tunnel {
  target: string;
  authorization?: string;
}

export interface Proxy {
  url: string;
  tunnels: Tunnel[];
  close(): Promise<void>;
}

/**
 * What the proxy does with a CONNECT: opens the tunnel (`relay`), closes the connection without a word
 * (`close`), or answers with a status other than 200 (407: it wants credentials).
 */
export type TunnelAnswer = 'relay' | 'close' | number;

/**
 * A CONNECT proxy on 127.0.0.1: every tunnel goes to 127.0.0.1 at the port asked for, whatever the name;
 * `answer` may make it refuse some.
 */
export async function connectProxy(answer: (tunnel: Tunnel) => TunnelAnswer = () => 'relay'): Promise<Proxy> {
  const sockets = new Set<Socket>();
  const tunnels: Tunnel[] = [];
  const server = createHttpServer((_req, res) => res.writeHead(405).end());
  server.on('connection', (socket: Socket) => sockets.add(socket));
  server.on('connect', (req, socket: Socket, head: Buffer) => {
    const target = req.url ?? '';
    const tunnel = { target, ...(req.headers['proxy-authorization'] ? { authorization: req.headers['proxy-authorization'] } : {}) };
    tunnels.push(tunnel);
    const answered = answer(tunnel);
    if (answered === 'close') return void socket.destroy();
    if (typeof answered === 'number') {
      const challenge = answered === 407 ? 'Proxy-Authenticate: Basic realm="corp"\r\n' : '';
      return void socket.end(`HTTP/1.1 ${answered} Refused\r\n${challenge}Content-Length: 0\r\n\r\n`);
    }
    const port = Number(/:(\d+)$/.exec(target)?.[1]);
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    relay(socket, head, port, sockets);
  });
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}`, tunnels, close: () => closeServer(server, sockets) };
}

function relay(socket: Socket, head: Buffer, port: number, sockets: Set<Socket>): void {
  const upstream = connect(port, '127.0.0.1');
  sockets.add(upstream);
  if (head.length > 0) upstream.write(head);
  socket.pipe(upstream).pipe(socket);
  const end = () => {
    socket.destroy();
    upstream.destroy();
  };
  socket.on('error', end).on('close', end);
  upstream.on('error', end).on('close', end);
}

async function listen(server: Server | ReturnType<typeof createTlsServer>): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function closeServer(server: Server | ReturnType<typeof createTlsServer>, sockets: Set<Socket>): Promise<void> {
  for (const socket of sockets) socket.destroy();
  return new Promise((resolve) => server.close(() => resolve()));
}
