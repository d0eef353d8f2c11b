import { existsSync, readFileSync } from 'node:fs';
import { copyFile, readFile, readdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { describe, expect } from 'vitest';
import { checkpointPath, CheckpointWriter, exportFingerprint, type CheckpointState } from '../../src/export/checkpoint.js';
import type { ExportRequest } from '../../src/export/export-request.js';
import { runExport } from '../../src/export/run-export.js';
import { context, request, rows, service, tempFile, useTempFolder } from './export-fixtures.js';
import { test as it } from '../helpers/emulator-fixture.js';

it.beforeEach(({ tmp }) => useTempFolder(tmp));

// Issue 15, item 9: a kill in the last moments of an export (between the rename of FILE.partial to
// FILE and the removal of the checkpoint) must leave a state the next run understands.

interface Seen {
  done: boolean;
  rows: number;
}

/** Polls FILE and its checkpoint between the export's own steps; returns the checkpoints seen beside a FILE. */
function watchCommit(path: string): { stop(): Seen[] } {
  const seen: Seen[] = [];
  let watching = true;
  const look = (): void => {
    if (!watching) return;
    if (existsSync(path)) {
      try {
        seen.push(JSON.parse(readFileSync(checkpointPath(path), 'utf8')) as Seen);
      } catch {
        // no checkpoint (or none yet): nothing to check
      }
    }
    setImmediate(look);
  };
  look();
  return {
    stop() {
      watching = false;
      return seen;
    },
  };
}

/** The checkpoint the last page of a complete export of `rows` leaves. */
function lastPageState(req: ExportRequest, bytes: number): CheckpointState {
  return {
    fingerprint: exportFingerprint(req),
    statusFields: [],
    cursor: null,
    done: true,
    rows: rows.length,
    bytes,
    lastPageIds: rows.slice(-3).map((row) => row.id),
    duplicates: 0,
    truncated: { service: {}, spreadsheet: {} },
  };
}

async function writeCheckpoint(path: string, state: CheckpointState): Promise<void> {
  const writer = new CheckpointWriter(checkpointPath(path), async () => undefined);
  writer.update(state);
  await writer.flush();
}

describe('the commit of an export to -o FILE', () => {
  it('orders its steps so that FILE never stands beside a checkpoint that does not say the last page was written', async () => {
    for (let trial = 0; trial < 5; trial += 1) {
      const path = await tempFile('out.csv');
      const watcher = watchCommit(path);
      await runExport(context().ctx, service().fetchPage, request({ output: path }));
      await new Promise((resolve) => setTimeout(resolve, 20));
      for (const checkpoint of watcher.stop()) expect(checkpoint).toMatchObject({ done: true, rows: rows.length });
      expect(await readdir(dirname(path))).toEqual(['out.csv']);
    }
  });

  it('recognises the state a kill after the rename leaves: --resume says the export is complete, a plain run starts afresh', async () => {
    const path = await tempFile('out.csv');
    await runExport(context().ctx, service().fetchPage, request({ output: path }));
    const content = await readFile(path, 'utf8');
    const state = lastPageState(request({ output: path }), Buffer.byteLength(content));

    await writeCheckpoint(path, state);
    const resumed = context();
    const svc = service();
    const summary = await runExport(resumed.ctx, svc.fetchPage, request({ output: path, resume: true }));
    expect(svc.calls).toEqual([]);
    expect(summary).toMatchObject({ rows: rows.length, pages: 0 });
    expect(resumed.stderr()).toMatch(/^tds: the export to .*out\.csv is already complete \(23 rows\); nothing to do\n$/);
    expect(await readFile(path, 'utf8')).toBe(content);
    expect(await readdir(dirname(path))).toEqual(['out.csv']);

    await writeCheckpoint(path, state);
    const plain = context();
    const again = service();
    await runExport(plain.ctx, again.fetchPage, request({ output: path }));
    expect(again.calls.length).toBeGreaterThan(0);
    expect(plain.stderr()).toBe('');
    expect(await readFile(path, 'utf8')).toBe(content);
    expect(await readdir(dirname(path))).toEqual(['out.csv']);
  });

  it('a kill after the last checkpoint but before the rename: --resume ends the output once and renames it', async () => {
    const whole = await tempFile('whole.json');
    await runExport(context().ctx, service().fetchPage, request({ output: whole, format: 'json' }));
    const content = await readFile(whole, 'utf8');
    const path = await tempFile('out.json');
    await copyFile(whole, `${path}.partial`);
    // The last page's checkpoint counts the bytes before the end of the JSON array (`\n]\n`).
    await writeCheckpoint(path, lastPageState(request({ output: path, format: 'json' }), Buffer.byteLength(content) - 3));
    const svc = service();
    await runExport(context().ctx, svc.fetchPage, request({ output: path, format: 'json', resume: true }));
    expect(svc.calls).toEqual([]);
    expect(await readFile(path, 'utf8')).toBe(content);
    expect(await readdir(dirname(path))).toEqual(['out.json']);
  });
});
