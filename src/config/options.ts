// src/config/options.ts: config's start-up surface, what the command definitions read (the config keys and
// their help, keys.ts). index.ts is the whole surface.

export { configKeyHelp, DEFAULT_CHECKS_FILE } from './keys.js';
