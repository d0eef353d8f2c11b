import { describe, expect, it } from 'vitest';
import { finishedResultsCollector, returnFreedMemoryAtOnce } from '../../src/duckdb/engine.js';

// The one place that tells DuckDB's allocator to return freed pages at once (a sync and a Parquet
// staging file both call it before DuckDB loads).

describe('returnFreedMemoryAtOnce', () => {
  it('sets jemalloc’s decay to 0 when the environment has no setting', () => {
    const env: NodeJS.ProcessEnv = {};
    returnFreedMemoryAtOnce(env);
    expect(env).toEqual({ DUCKDB_JE_MALLOC_CONF: 'dirty_decay_ms:0,muzzy_decay_ms:0' });
  });

  it('keeps a setting the user made', () => {
    const env: NodeJS.ProcessEnv = { DUCKDB_JE_MALLOC_CONF: 'narenas:1' };
    returnFreedMemoryAtOnce(env);
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
