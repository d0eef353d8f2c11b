import { readFileSync } from 'node:fs';

/** tds's version, from its package.json (`tds --version`, the MCP server's info). */
export const TDS_VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;

/** The flags of commander's version option (commands/root.ts), which bin/tds.js and main.ts answer before any command is built. */
export const VERSION_FLAGS: readonly string[] = ['--version', '-V'];
