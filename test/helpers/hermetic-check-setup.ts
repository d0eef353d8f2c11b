import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The hermeticity check (vitest.hermetic.config.ts): before the suite's own setup, the environment a
// developer might have: TDS_BASE_URL, TDS_API_KEY and TDS_WEBHOOK_URL, and a default profile in
// ~/.config/tds, all pointing at a live server on 127.0.0.1 that records every request. The check fails
// if any request reaches it.

export default async function setup(): Promise<() => Promise<void>> {
  const seen: string[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    seen.push(`${req.method ?? '?'} ${req.url ?? ''}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"workspaces": [], "tables": [], "total": 0}');
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const home = await mkdtemp(join(tmpdir(), 'tds-hermetic-home-'));
  const profile = {
    'base-url': `${origin}/v1`,
    'api-key': 'tds_hermetic_profile_key',
    'webhook.signups': `${origin}/v1/webhook/wh_hermetic_profile`,
  };
  await mkdir(join(home, '.config', 'tds'), { recursive: true, mode: 0o700 });
  await writeFile(join(home, '.config', 'tds', 'config.json'), JSON.stringify({ profiles: { default: profile } }), { mode: 0o600 });
  Object.assign(process.env, {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    TDS_BASE_URL: `${origin}/v1`,
    TDS_API_KEY: 'tds_hermetic_env_key',
    TDS_WEBHOOK_URL: `${origin}/v1/webhook/wh_hermetic_env`,
  });
  console.log(`hermetic check: TDS_BASE_URL, TDS_API_KEY, TDS_WEBHOOK_URL and ~/.config/tds point at ${origin}`);
  return async () => {
    await new Promise<void>((closed) => server.close(() => closed()));
    await rm(home, { recursive: true, force: true });
    console.log(`hermetic check: ${seen.length} requests reached ${origin}${seen.length ? `:\n  ${seen.join('\n  ')}` : ''}`);
    if (seen.length > 0) throw new Error(`the suite reached the developer's service ${seen.length} times`);
  };
}
