import { describe, expect, it } from 'vitest';
import { finishedResultsCollector, returnFreedMemory } from '../../src/duckdb/engine.js';

// The one place that tells DuckDB's allocator when to return freed pages (a sync and a Parquet staging
// file at once, a diff after 20 ms; each calls it before DuckDB loads).

describe('returnFreedMemory', () => {
  it('sets jemalloc’s decay when the environment has no setting', () => {
    const env: NodeJS.ProcessEnv = {};
    returnFreedMemory(0, env);
    expect(env).toEqual({ DUCKDB_JE_MALLOC_CONF: 'dirty_decay_ms:0,muzzy_decay_ms:0' });
    const later: NodeJS.ProcessEnv = {};
    returnFreedMemory(20, later);
    expect(later).toEqual({ DUCKDB_JE_MALLOC_CONF: 'dirty_decay_ms:20,muzzy_decay_ms:0' });
  });

  it('keeps a setting the user made', () => {
    const env: NodeJS.ProcessEnv = { DUCKDB_JE_MALLOC_CONF: 'narenas:1' };
    returnFreedMemory(0, env);
    expect(env.DUCKDB_JE_MALLOC_CONF).toBe('narenas:1');
  });
});

// DuckDB's results are native memory freed when their JavaScript objects are collected; a follower
// collects before its waits (sync-run.ts).
describe('finishedResultsCollector', () => {
  it('collects what nothing refers to any more, at once', async () => {
    const finished = (() => new WeakRef({ result: new Array(1_000).fill(0) }))();
    // making or reading a WeakRef keeps its target alive until the task ends
    const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));
    await nextTask();
    expect(finished.deref()).toBeDefined();
    await nextTask();
    finishedResultsCollector()();
    expect(finished.deref()).toBeUndefined();
  });
});
