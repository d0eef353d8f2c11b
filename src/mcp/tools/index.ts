import type { z } from 'zod';
import type { Session } from '../session.js';
import type { Tool } from '../tool.js';
import { checkTablesTool } from './check-tables.js';
import { describeTableTool } from './describe-table.js';
import { diffTableTool } from './diff-table.js';
import { listTablesTool } from './list-tables.js';
import { pushRecordsTool } from './push-records.js';
import { querySqlTool } from './query-sql.js';
import { searchRowsTool } from './search-rows.js';
import { syncTablesTool } from './sync-tables.js';
import { tableStatsTool } from './table-stats.js';

/** Where the tools go (the server registers each). */
export interface ToolSink {
  add<S extends z.ZodObject>(tool: Tool<S>): void;
}

/** Every tool of CLI.md's table, in its order; push_records only with --allow-push. */
export function addTools(session: Session, sink: ToolSink): void {
  sink.add(listTablesTool(session));
  sink.add(describeTableTool(session));
  sink.add(querySqlTool(session));
  sink.add(tableStatsTool(session));
  sink.add(diffTableTool(session));
  sink.add(syncTablesTool(session));
  sink.add(searchRowsTool(session));
  if (session.options.allowPush) sink.add(pushRecordsTool(session));
  sink.add(checkTablesTool(session));
}
