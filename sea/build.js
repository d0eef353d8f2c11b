// `npm run package`: tds as one executable file for this machine's platform (Node's single-executable
// applications), written to build/tds-<platform>-<arch> with its SHA-256 beside it. It carries this
// Node (process.execPath) and, as the asset app.pack, tds as `npm pack` would ship it plus its
// production dependencies; sea/bootstrap.cjs unpacks that at the first run. Build it on each platform
// for that platform (macOS also needs `codesign --sign -` afterwards; see docs/setup.md "Install").

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'build');
const TARGET = join(OUT, `tds-${process.platform}-${process.arch}${process.platform === 'win32' ? '.exe' : ''}`);
/** The fuse Node's single-executable support looks for (docs: "Single executable applications"). */
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
/** Starts bin/tds.js from the unpacked folder: an ES module, imported from a CommonJS file there. */
const START = "'use strict';\nimport(require('node:url').pathToFileURL(require('node:path').join(__dirname, 'bin', 'tds.js')).href);\n";

/**
 * Every file under a folder, as paths relative to ROOT.
 * @param {string} folder
 * @returns {string[]}
 */
function filesUnder(folder) {
  /** @type {string[]} */
  const found = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) found.push(...filesUnder(path));
    else if (entry.isFile()) found.push(relative(ROOT, path));
  }
  return found;
}

/** The folders of the production dependencies (npm's own answer, so optional platform packages count too). */
function productionPackages() {
  const listed = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: ROOT, encoding: 'utf8' });
  return listed
    .split('\n')
    .filter((line) => line.trim() !== '' && line !== ROOT)
    .map((line) => relative(ROOT, line));
}

function buildPack() {
  const files = [
    'package.json',
    ...filesUnder(join(ROOT, 'bin')),
    ...filesUnder(join(ROOT, 'dist', 'bundle')).filter((file) => !file.endsWith('meta.json')),
    ...productionPackages().flatMap((folder) => filesUnder(join(ROOT, folder))),
  ];
  /** @type {Array<{ path: string; mode: number; offset: number; size: number }>} */
  const index = [];
  /** @type {Buffer[]} */
  const chunks = [];
  let offset = 0;
  /** @type {(path: string, bytes: Buffer, mode: number) => void} */
  const add = (path, bytes, mode) => {
    const packed = gzipSync(bytes, { level: 6 });
    index.push({ path, mode, offset, size: packed.length });
    chunks.push(packed);
    offset += packed.length;
  };
  for (const file of [...new Set(files)].sort()) add(file, readFileSync(join(ROOT, file)), statSync(join(ROOT, file)).mode & 0o777);
  add('sea-start.cjs', Buffer.from(START), 0o600);
  const header = Buffer.from(JSON.stringify(index), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(header.length);
  return { pack: Buffer.concat([length, header, ...chunks]), count: index.length };
}

function main() {
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  rmSync(OUT, { recursive: true, force: true });
  const work = join(OUT, 'work');
  mkdirSync(work, { recursive: true });
  const { pack, count } = buildPack();
  const sum = createHash('sha256').update(pack).digest('hex');
  writeFileSync(join(work, 'app.pack'), pack);
  const bootstrap = readFileSync(join(ROOT, 'sea', 'bootstrap.cjs'), 'utf8').replace('__PACK_SHA256__', sum);
  writeFileSync(join(work, 'bootstrap.cjs'), bootstrap);
  const config = {
    main: join(work, 'bootstrap.cjs'),
    output: join(work, 'sea.blob'),
    disableExperimentalSEAWarning: true,
    useCodeCache: false,
    assets: { 'app.pack': join(work, 'app.pack') },
  };
  writeFileSync(join(work, 'sea-config.json'), JSON.stringify(config));
  execFileSync(process.execPath, ['--experimental-sea-config', join(work, 'sea-config.json')], { stdio: 'inherit' });
  copyFileSync(process.execPath, TARGET);
  chmodSync(TARGET, 0o755);
  const postject = join(ROOT, 'node_modules', 'postject', 'dist', 'cli.js');
  const macho = process.platform === 'darwin' ? ['--macho-segment-name', 'NODE_SEA'] : [];
  // postject warns of ELF notes it cannot name on every build; only a failure is worth showing
  execFileSync(process.execPath, [postject, TARGET, 'NODE_SEA_BLOB', config.output, '--sentinel-fuse', FUSE, ...macho], { stdio: 'pipe' });
  rmSync(work, { recursive: true, force: true });
  const executableSum = createHash('sha256').update(readFileSync(TARGET)).digest('hex');
  writeFileSync(`${TARGET}.sha256`, `${executableSum}  ${relative(OUT, TARGET)}\n`);
  const megabytes = (statSync(TARGET).size / 1e6).toFixed(0);
  process.stderr.write(`built ${relative(ROOT, TARGET)} (${megabytes} MB, Node ${process.version}, ${count} files packed)\n`);
}

main();
