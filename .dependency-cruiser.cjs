// The architecture's arrows, checked by `npm run lint` (dependency-cruiser).
//
// Folders of src/ are layered, lowest first; a file may import its own folder and the layers below
// its own, never a layer above or a sibling on the same layer, so no cycle between folders can form.

/** Each entry is one layer: folders (or top-level files) of src/ that may import only what is listed before. */
const LAYERS = [
  ['core', 'service', 'collections'],
  ['records', 'filter'],
  ['http', 'output', 'duckdb'],
  ['parquet'],
  ['config', 'export', 'push', 'mirror', 'emulator'],
  ['stats', 'lake'],
  ['check'],
  ['mcp'],
  ['commands'],
  ['program.ts'],
  ['main.ts'],
];

/** @param {string} name */
const pathOf = (name) => (name.endsWith('.ts') ? `^src/${name.replace('.', '\\.')}$` : `^src/${name}/`);

const layerRules = LAYERS.flatMap((layer, rank) =>
  layer.flatMap((name) => {
    const allowed = new Set(LAYERS.slice(0, rank).flat());
    const forbidden = LAYERS.flat().filter((other) => other !== name && !allowed.has(other));
    if (forbidden.length === 0) return [];
    return {
      name: `layer-${name.replace('.ts', '')}`,
      severity: 'error',
      comment: `src/${name} may import only ${[...allowed].join(', ') || 'nothing else in src'} (the layers below it)`,
      from: { path: pathOf(name) },
      to: { path: forbidden.map(pathOf) },
    };
  }),
);

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'No import cycle between files.', from: {}, to: { circular: true } },
    {
      name: 'emulator-only-service',
      severity: 'error',
      comment: 'The emulator shares only service/ (the service contract) with the client, so a client bug cannot hide in shared code.',
      from: { path: '^src/emulator/' },
      to: { path: '^src/', pathNot: ['^src/emulator/', '^src/service/'] },
    },
    {
      name: 'http-knows-no-command',
      severity: 'error',
      comment: 'The HTTP core knows no command, output format or export.',
      from: { path: '^src/http/' },
      to: { path: ['^src/commands/', '^src/output/', '^src/export/', '^src/push/', '^src/mirror/', '^src/config/'] },
    },
    {
      name: 'pure-layers-no-http',
      severity: 'error',
      comment: 'Records, filters and the service contract are pure: no HTTP.',
      from: { path: ['^src/records/', '^src/filter/', '^src/service/'] },
      to: { path: '^src/http/' },
    },
    {
      name: 'commands-through-index',
      severity: 'error',
      comment:
        "A command imports another folder only through that folder's index.ts, the surface it states in its first lines, or its options.ts, " +
        'the smaller surface that the command definitions read at start-up.',
      from: { path: '^src/commands/' },
      to: { path: '^src/(?!commands/)[^/]+/', pathNot: ['/index\\.ts$', '^src/[^/]+/options\\.ts$'] },
    },
    {
      name: 'every-folder-in-a-layer',
      severity: 'error',
      comment: 'Each folder (and top-level file) of src/ belongs to a layer in LAYERS.',
      from: { path: '^src/', pathNot: LAYERS.flat().map(pathOf) },
      to: { path: '^src/' },
    },
    ...layerRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
