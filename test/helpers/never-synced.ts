/**
 * A table's sync fields before its first sync, as `tds stats` and the MCP server's describe_table give
 * them: no sync, never verified, no bound (so never stale), no lake folder.
 */
export const NEVER_SYNCED = { lastSync: null, verifiedAt: null, maxStale: null, stale: false, staleFor: null, lake: null } as const;
