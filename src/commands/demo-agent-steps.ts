import type { DemoStep } from './demo-step.js';

/** What an MCP client (Claude Desktop or Code, Cursor) needs to use the tables: `tds mcp` on stdio. */
const MCP_CONFIG = { mcpServers: { tds: { command: 'npx', args: ['tds', 'mcp'] } } };

/** Agents: the configuration line that gives an MCP client every table, the mirror, stats and SQL. */
export function agentSteps(): DemoStep[] {
  const text = `${JSON.stringify(MCP_CONFIG, null, 2)}\n`;
  return [
    {
      title: 'agents: an MCP client (Claude, Cursor) gets the same tables, mirror, stats and SQL through `tds mcp` on stdio',
      display: 'cat .mcp.json',
      run: () => Promise.resolve({ code: 0, stdout: text, stderr: '' }),
    },
  ];
}
