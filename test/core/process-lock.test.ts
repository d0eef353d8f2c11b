import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockAddress, tryLock } from '../../src/core/process-lock.js';

const MODULE = fileURLToPath(new URL('../../dist/core/process-lock.js', import.meta.url));

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tds-lock-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Another process that takes the lock of `path` and says so on stdout, then waits. */
async function holder(path: string): Promise<ChildProcess> {
  const script = `const { tryLock } = await import(${JSON.stringify(MODULE)});
const lock = await tryLock(${JSON.stringify(path)});
process.stdout.write(lock ? 'held\\n' : 'busy\\n');
setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  expect(line.toString()).toBe('held\n');
  return child;
}

describe('tryLock', () => {
  it('is exclusive within a process, and free again after release', async () => {
    const path = join(dir, 'a.journal');
    const first = await tryLock(path);
    expect(first).toBeDefined();
    expect(await tryLock(path)).toBeUndefined();
    await first!.release();
    const again = await tryLock(path);
    expect(again).toBeDefined();
    await again!.release();
  });

  it('is held by another process until it dies, even by SIGKILL', async () => {
    const path = join(dir, 'b.journal');
    const child = await holder(path);
    expect(await tryLock(path)).toBeUndefined();
    child.kill('SIGKILL');
    await once(child, 'exit');
    const lock = await tryLock(path);
    expect(lock).toBeDefined();
    await lock!.release();
  });

  it('names the same lock for every spelling of a path', async () => {
    await symlink(dir, join(dir, 'link'));
    expect(lockAddress(join(dir, 'link', 'c.csv'))).toBe(lockAddress(join(dir, 'c.csv')));
    expect(lockAddress(join(dir, 'x', '..', 'c.csv'))).toBe(lockAddress(join(dir, 'c.csv')));
    expect(lockAddress(join(dir, 'd.csv'))).not.toBe(lockAddress(join(dir, 'c.csv')));
  });
});
