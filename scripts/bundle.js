#!/usr/bin/env node
// @ts-check
// The second half of `npm run build`: tsc's modules (dist/) bundled with the packages they use into
// dist/bundle/, the program bin/tds.js runs. A process then reads a few files where it read hundreds:
// @duckdb/node-api is some 180 CommonJS files, zod and the MCP SDK about 110 modules, and each costs
// Node its resolution, reading and compiling (a small `tds sql` 30-40 ms, `tds mcp` as much; measured
// in docs/performance.md). The bundle is split where tds imports a module only when a command needs it
// (`await import(…)`), so each command still loads only what it uses (test/startup.test.ts reads
// dist/bundle/meta.json, esbuild's account of which modules each file holds, to check it).
// Left out: the packages with native code, which Node loads from node_modules as before; and Ajv, which
// the MCP SDK loads for a use tds has not (scripts/mcp-sdk-shims.js).
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist', 'bundle');
const NATIVE = ['@duckdb/node-bindings', '@napi-rs/keyring'];

rmSync(OUT, { recursive: true, force: true });
const result = await build({
  absWorkingDir: ROOT,
  // main.js the program; version.js what bin/tds.js reads for `tds --version` (then nothing else loads)
  entryPoints: { main: 'dist/main.js', version: 'dist/core/version.js' },
  // two folders down, as dist/core/ is: `new URL('../../package.json', import.meta.url)` still finds it
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  external: NATIVE,
  // CommonJS packages in an ES module call `require` (their own dependencies, Node's built-ins): give them Node's
  banner: { js: "import { createRequire as tdsCreateRequire } from 'node:module';\nconst require = tdsCreateRequire(import.meta.url);" },
  chunkNames: '[name]-[hash]',
  metafile: true,
  plugins: [
    {
      name: 'mcp-sdk-shims',
      setup(build) {
        build.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({ path: join(ROOT, 'scripts', 'mcp-sdk-shims.js') }));
      },
    },
  ],
  legalComments: 'none',
  // less for Node to read and V8 to parse (MCP `initialize` 5 % sooner, paired); names are kept for stack traces
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
});
writeFileSync(join(OUT, 'meta.json'), `${JSON.stringify(result.metafile)}\n`);
