// src/mirror/history/: the mirror's history. Its surface: the objects beside each mirror table
// (history-objects.ts: T__history, the macros T_at_sync and T_at, the syncs begun and ended, the
// history's keys and horizon), retyped columns kept as they were (retyped-columns.ts, which the lake and
// diff read too) and the upgrade of a format-1 mirror (upgrade-format-1.ts).

export {
  beginSync,
  CHANGE_KEY,
  createHistoryTable,
  createMacros,
  endSync,
  hasTable,
  HISTORY_KEYS,
  historyHorizon,
  historyNames,
  REPLACED_AT_KEY,
  REPLACED_BY_KEY,
  SYNC_ID_KEY,
  tableColumns,
  type HistoryHorizon,
  type HistoryNames,
  type SyncBegun,
  type SyncEnded,
} from './history-objects.js';
export {
  archiveKeyOf,
  convertExpression,
  lastSyncId,
  loadArchives,
  saveArchive,
  versionColumns,
  type ArchivedColumn,
  type VersionColumn,
} from './retyped-columns.js';
export { SYNCS_TABLE_2, upgradeFormat1 } from './upgrade-format-1.js';
