import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { json, startScriptedServer } from './scripted-server.js';

// The hermeticity check (vitest.hermetic.config.ts): before the suite's own setup, the environment a
// developer might have: TDS_BASE_URL, TDS_API_KEY and TDS_WEBHOOK_URL, and a default profile in
// ~/.config/tds, all pointing at a live server on 127.0.0.1 that records every request. The check fails
// if any request reaches it.

export default async function setup(): Promise<() => Promise<void>> {
  const server = await startScriptedServer(() => json(200, { workspaces: [], tables: [], total: 0 }));
  const origin = server.origin;
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
    await server.close();
    await rm(home, { recursive: true, force: true });
    const seen = server.requests.map((request) => `${request.method} ${request.url}`);
    console.log(`hermetic check: ${seen.length} requests reached ${origin}${seen.length ? `:\n  ${seen.join('\n  ')}` : ''}`);
    if (seen.length > 0) throw new Error(`the suite reached the developer's service ${seen.length} times`);
  };
}
