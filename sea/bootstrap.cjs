// The single executable's main script (Node's single-executable applications). The executable carries
// tds as one asset, `app.pack`: package.json, bin/, dist/ and the production node_modules (the DuckDB
// native addon among them), each file gzipped. At the first run it is unpacked, its SHA-256 checked
// against the one built in, into a private folder of the user's cache named after that checksum; later
// runs find it there. Then bin/tds.js runs from it as under `node`, with the same arguments.

'use strict';
const { createHash, randomBytes } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { gunzipSync } = require('node:zlib');
const { createRequire } = require('node:module');
const sea = require('node:sea');

/** The pack's SHA-256, written here by sea/build.js. */
const PACK_SHA256 = '__PACK_SHA256__';

function cacheRoot() {
  if (process.env.TDS_CACHE_DIR) return process.env.TDS_CACHE_DIR;
  if (process.platform === 'win32') return path.join(process.env.LOCALAPPDATA || path.join(os.homedir(), 'AppData', 'Local'), 'tds');
  if (process.platform === 'darwin') return path.join(os.homedir(), 'Library', 'Caches', 'tds');
  const xdg =
    process.env.XDG_CACHE_HOME && path.isAbsolute(process.env.XDG_CACHE_HOME)
      ? process.env.XDG_CACHE_HOME
      : path.join(os.homedir(), '.cache');
  return path.join(xdg, 'tds');
}

/**
 * The pack: a 4-byte length, a JSON index [{path, mode, offset, size}], then each file's gzipped bytes.
 * @param {Buffer} pack
 * @param {string} into
 */
function unpack(pack, into) {
  const indexLength = pack.readUInt32BE(0);
  const index = JSON.parse(pack.subarray(4, 4 + indexLength).toString('utf8'));
  const base = 4 + indexLength;
  for (const entry of index) {
    const target = path.join(into, entry.path);
    fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
    const bytes = gunzipSync(pack.subarray(base + entry.offset, base + entry.offset + entry.size));
    fs.writeFileSync(target, bytes, { mode: entry.mode & 0o700 });
  }
}

/** The unpacked app's folder: made whole beside its place, then renamed into it, so a killed first run leaves nothing half-made. */
function appFolder() {
  const root = cacheRoot();
  const folder = path.join(root, `app-${PACK_SHA256.slice(0, 16)}`);
  if (fs.existsSync(path.join(folder, 'bin', 'tds.js'))) return folder;
  const pack = Buffer.from(sea.getAsset('app.pack'));
  const sum = createHash('sha256').update(pack).digest('hex');
  if (sum !== PACK_SHA256) {
    process.stderr.write(`tds: this executable is damaged (its contents' checksum is ${sum}, not ${PACK_SHA256}): download it again\n`);
    process.exit(1);
  }
  fs.mkdirSync(root, { recursive: true, mode: 0o700 });
  const staging = path.join(root, `.app-${randomBytes(6).toString('hex')}.partial`);
  fs.mkdirSync(staging, { mode: 0o700 });
  try {
    unpack(pack, staging);
    fs.renameSync(staging, folder);
  } catch (error) {
    fs.rmSync(staging, { recursive: true, force: true });
    // another run unpacked the same app first: use it
    if (!fs.existsSync(path.join(folder, 'bin', 'tds.js'))) throw error;
  }
  return folder;
}

const folder = appFolder();
// bin/tds.js is an ES module: a file of the folder, loaded by a real require, imports it.
createRequire(path.join(folder, 'package.json'))('./sea-start.cjs');
