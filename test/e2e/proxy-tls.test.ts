import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runTds } from '../helpers/cli.js';
import {
  connectProxy,
  makeCertificates,
  tlsFront,
  type Certificates,
  type Front,
  type Proxy,
  type TunnelAnswer,
} from '../helpers/network.js';
import { RATE_SCALE } from '../helpers/rate-scale.js';
import { runInProcess } from '../helpers/run-in-process.js';

// A real network's two gatekeepers, end to end: a CONNECT proxy (HTTPS_PROXY, HTTP_PROXY, NO_PROXY, as
// curl and gh take them) and TLS (https:// base URLs, certificates the system does not trust).
// service.test resolves nowhere: only the proxy reaches it (at 127.0.0.1), so a run that gets there
// went through the proxy. NODE_EXTRA_CA_CERTS is read by node at start-up: those runs are processes.

let emu: RunningEmulator;
let certs: Certificates;
let proxy: Proxy;
const fronts: Front[] = [];

beforeAll(async () => {
  certs = makeCertificates();
  emu = await startEmulator({ port: 0, rateLimits: false });
  proxy = await connectProxy();
});
afterAll(async () => {
  await Promise.all([emu.close(), proxy.close(), ...fronts.map((front) => front.close())]);
  certs.remove();
});

async function front(cert: string): Promise<Front> {
  const started = await tlsFront(Number(new URL(emu.baseUrl).port), certs.key, cert);
  fronts.push(started);
  return started;
}

const workspaces = ['workspaces', '--format', 'json'];

describe('proxies', () => {
  it('reaches an https:// service through HTTPS_PROXY, with its credentials sent to the proxy and never shown', async () => {
    const service = await front(certs.service);
    const proxyUrl = proxy.url.replace('//', '//alice:s3cret@');
    const before = proxy.tunnels.length;
    const result = await runTds([...workspaces, '--verbose'], {
      env: {
        TDS_BASE_URL: `https://service.test:${service.port}/v1`,
        TDS_API_KEY: emu.apiKey,
        HTTPS_PROXY: proxyUrl,
        NODE_EXTRA_CA_CERTS: certs.caFile,
      },
    });
    expect(result.stderr).toContain(`through the proxy http://***@127.0.0.1:${new URL(proxy.url).port}`);
    expect(result.stderr).not.toContain('s3cret');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toBeInstanceOf(Array);
    expect(proxy.tunnels.slice(before)).toEqual([
      { target: `service.test:${service.port}`, authorization: `Basic ${Buffer.from('alice:s3cret').toString('base64')}` },
    ]);
  });

  it('sends a push to the webhook through the proxy too: every record arrives', async () => {
    const service = await front(certs.service);
    const before = proxy.tunnels.length;
    const inbox = Object.entries(emu.webhooks)[0]!;
    const webhook = inbox[1].replace(/^http:\/\/[^/]+/, `https://service.test:${service.port}`);
    const dir = await mkdtemp(join(tmpdir(), 'tds-proxy-push-'));
    try {
      const file = join(dir, 'p.ndjson');
      await writeFile(file, Array.from({ length: 30 }, (_, i) => JSON.stringify({ n: i + 1 })).join('\n'));
      const env = { HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: certs.caFile };
      const result = await runTds(['push', webhook, file, '--batch-size', '10', '--json', '--verbose'], { env });
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout).records.sent).toBe(30);
      expect(result.stderr).toMatch(
        /sending to https:\/\/service\.test:\d+\/v1\/webhook\/….{4} through the proxy http:\/\/127\.0\.0\.1:\d+/,
      );
      expect(new Set(proxy.tunnels.slice(before).map((tunnel) => tunnel.target))).toEqual(new Set([`service.test:${service.port}`]));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('takes the lower-case names too, and goes direct to what NO_PROXY lists', async () => {
    const service = await front(certs.service);
    const before = proxy.tunnels.length;
    const env = { TDS_BASE_URL: `https://service.test:${service.port}/v1`, TDS_API_KEY: emu.apiKey, https_proxy: proxy.url };
    const proxied = await runInProcess(workspaces, { env });
    expect(proxy.tunnels.slice(before).map((tunnel) => tunnel.target)).toEqual([`service.test:${service.port}`]);
    // the CA is not trusted in this process: reaching the TLS front is what counts here
    expect(proxied.stderr).toMatch(/certificate/);
    const direct = await runInProcess(workspaces, { env: { ...env, no_proxy: 'example.com, .test' } });
    expect(direct.stderr).toMatch(/service\.test:\d+: host not found \(ENOTFOUND\)/);
    expect(proxy.tunnels).toHaveLength(before + 1);
  });

  it('reaches a loopback service directly unless a NO_PROXY of the user leaves loopback out', async () => {
    const env = { TDS_BASE_URL: emu.baseUrl, TDS_API_KEY: emu.apiKey, HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url };
    const before = proxy.tunnels.length;
    expect((await runInProcess(workspaces, { env })).code).toBe(0);
    expect(proxy.tunnels).toHaveLength(before);
    expect((await runInProcess(workspaces, { env: { ...env, NO_PROXY: 'example.com' } })).code).toBe(0);
    expect(proxy.tunnels.slice(before).map((tunnel) => tunnel.target)).toEqual([new URL(emu.baseUrl).host]);
  });
});

describe('a proxy that does not open the tunnel: the attempts --max-retries allows, then one line', () => {
  async function refusing(answer: TunnelAnswer): Promise<Proxy> {
    const started = await connectProxy(() => answer);
    onTestFinished(() => started.close());
    return started;
  }
  // loopback goes through the proxy too once NO_PROXY is set and leaves it out
  const through = (refuser: Proxy, proxyUrl = refuser.url) => ({
    TDS_BASE_URL: emu.baseUrl,
    TDS_API_KEY: emu.apiKey,
    TDS_RATE_SCALE: String(RATE_SCALE),
    NO_PROXY: 'none.example',
    HTTP_PROXY: proxyUrl,
    HTTPS_PROXY: proxyUrl,
  });

  it.each([
    ['http://', () => emu.baseUrl],
    ['https://', () => 'https://service.test:8443/v1'],
  ])('a proxy that closes every tunnel to an %s service: exit 6 after 1 + --max-retries tunnels', async (_scheme, baseUrl) => {
    const closer = await refusing('close');
    const env = { ...through(closer), TDS_BASE_URL: baseUrl() };
    const host = new URL(baseUrl()).host;
    const result = await runInProcess([...workspaces, '--max-retries', '2', '--timeout', '5'], { env });
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toMatch(
      new RegExp(
        `^tds: list workspaces: gave up after 3 attempts \\(the proxy closed the tunnel ×3\\): the proxy http://127\\.0\\.0\\.1:\\d+ closed the tunnel to ${host.replace(/\./g, '\\.')}$`,
        'm',
      ),
    );
    expect(closer.tunnels).toHaveLength(3);
    const once = await runInProcess([...workspaces, '--max-retries', '0'], { env });
    expect(once.code).toBe(6);
    expect(closer.tunnels).toHaveLength(4);
  });

  it('a proxy that asks for credentials (407): exit 3, how to give them, and no second try', async () => {
    const asking = await refusing(407);
    const result = await runInProcess([...workspaces, '--max-retries', '3'], { env: through(asking) });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(
      /^tds: list workspaces: the proxy http:\/\/127\.0\.0\.1:\d+ asks for authentication \(407\): give it as http:\/\/USER:PASSWORD@HOST:PORT in HTTP_PROXY$/m,
    );
    expect(result.stderr).not.toMatch(/max-retries|UND_ERR/);
    expect(asking.tunnels).toHaveLength(1);
  });

  it.each([
    ['before sending', ['-', '--input-format', 'ndjson']],
    ['--check', ['--check']],
  ])(
    'push through a proxy that asks for credentials (407), %s: exit 3, how to give them, nothing sent, no second try',
    async (_when, args) => {
      const asking = await refusing(407);
      const webhook = Object.values(emu.webhooks)[0]!;
      const result = await runInProcess(['push', webhook, ...args, '--max-retries', '3'], { env: through(asking), input: '{"n":1}\n' });
      expect(result.code, result.stderr).toBe(3);
      expect(result.stderr).toMatch(
        /^tds: checking the webhook http:\/\/127\.0\.0\.1:\d+\/v1\/webhook\/….{4}: the proxy http:\/\/127\.0\.0\.1:\d+ asks for authentication \(407\): give it as http:\/\/USER:PASSWORD@HOST:PORT in HTTP_PROXY$/m,
      );
      expect(result.stderr).not.toMatch(/max-retries|UND_ERR/);
      expect(result.stderr).not.toContain(webhook);
      expect(asking.tunnels).toHaveLength(1);
    },
  );

  it('credentials in the proxy URL go as Proxy-Authorization; refused (407), they are said to be, never shown', async () => {
    const asking = await refusing(407);
    const withCredentials = asking.url.replace('//', '//alice:s3cret@');
    const result = await runInProcess(workspaces, { env: through(asking, withCredentials) });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(
      /the proxy http:\/\/\*\*\*@127\.0\.0\.1:\d+ refused the user name and password given in HTTP_PROXY \(407\)/,
    );
    expect(result.stderr).not.toContain('s3cret');
    expect(asking.tunnels).toEqual([
      { target: new URL(emu.baseUrl).host, authorization: `Basic ${Buffer.from('alice:s3cret').toString('base64')}` },
    ]);
  });

  it('a proxy URL that is not a URL: exit 2, one line, its password never shown', async () => {
    const result = await runInProcess(workspaces, {
      env: { TDS_BASE_URL: 'https://service.test/v1', TDS_API_KEY: emu.apiKey, HTTPS_PROXY: 'http://alice:pw@127.0.0.1:notaport' },
    });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/^tds: the proxy "http:\/\/\*\*\*@127\.0\.0\.1:notaport" is not a URL$/m);
    expect(result.stderr).not.toMatch(/pw|unexpected|at .*\.js/);
  });
});

describe('certificates the system does not trust: one line, the problem and the fix, no retry', () => {
  const proxied = (port: number) => ({
    TDS_BASE_URL: `https://service.test:${port}/v1`,
    TDS_API_KEY: emu.apiKey,
    HTTPS_PROXY: proxy.url,
  });

  it.each([
    ['self-signed', () => certs.selfSigned, /presents a self-signed certificate.*NODE_EXTRA_CA_CERTS=\/path\/to\/cert\.pem/],
    [
      'from an unknown CA',
      () => certs.service,
      /certificate authority this system does not trust.*NODE_EXTRA_CA_CERTS=\/path\/to\/ca\.pem/,
    ],
  ])('%s', async (_name, cert, message) => {
    const service = await front(cert());
    const result = await runInProcess(workspaces, { env: proxied(service.port) });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).not.toMatch(/try again|max-retries|check your connection/);
    expect(service.connections).toBe(1);
  });

  it.each([
    ['for another host name', () => certs.other, /presents a certificate for other\.test, not for service\.test.*\(other\.test\)/],
    ['expired', () => certs.expired, /presents a certificate that has expired.*renew/],
  ])('%s (its CA trusted)', async (_name, cert, message) => {
    const service = await front(cert());
    const result = await runTds(workspaces, { env: { ...proxied(service.port), NODE_EXTRA_CA_CERTS: certs.caFile } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(service.connections).toBe(1);
  });
});
