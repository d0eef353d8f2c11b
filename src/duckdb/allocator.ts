/**
 * The allocator DuckDB bundles (jemalloc) keeps freed pages a while to reuse them: with tables made and
 * dropped over and over (a sync's groups, the inboxes of a Parquet staging file) that is over 100 MB
 * held for nothing. Returned at once, RSS stays flat. DuckDB reads the setting from the environment
 * when its library loads, so this is called before the first database is opened; a setting the user
 * made is kept.
 */
export function returnFreedMemoryAtOnce(env: NodeJS.ProcessEnv = process.env): void {
  env.DUCKDB_JE_MALLOC_CONF ??= 'dirty_decay_ms:0,muzzy_decay_ms:0';
}
