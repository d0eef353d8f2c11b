// src/config/: profiles and settings. Its surface: the settings of a run, each from its flag, the
// environment or the profile (settings.ts: loadSettings, resolveSettings), and the webhook and
// notification URLs saved in the profile (loadWebhook, loadNotifyUrl); the config keys (keys.ts),
// config.json's place and its reading and writing (store.ts), the keychain (keychain.ts) and a secret
// read from stdin or a hidden prompt (read-secret.ts). Light: the command definitions read the config
// keys here at start-up; settings.ts is loaded by the first call below that reads a setting.

import type { Command } from 'commander';
import type { Context } from '../core/index.js';
import type { Settings, SettingsSources } from './settings.js';

export { KeychainUnavailable, keychainEnabled, readKeychainKey, removeKeychainKey, writeKeychainKey, type KeyStore } from './keychain.js';
export { configKey, configKeyHelp, DEFAULT_CHECKS_FILE, DEFAULT_PROFILE, displayValue, KEY_STORE, redactKey } from './keys.js';
export { readSecret } from './read-secret.js';
export type { Settings, SettingsSources } from './settings.js';
export { configDir, configFile, readConfig, writeConfig, type ConfigData } from './store.js';

/** A run's settings: see settings.ts. */
export async function loadSettings(ctx: Context, command: Command): Promise<Settings> {
  return (await import('./settings.js')).loadSettings(ctx, command);
}

/** A run's settings and where each came from: see settings.ts. */
export async function resolveSettings(ctx: Context, command: Command): Promise<{ settings: Settings; sources: SettingsSources }> {
  return (await import('./settings.js')).resolveSettings(ctx, command);
}

/** A webhook URL saved in the profile: see settings.ts. */
export async function loadWebhook(ctx: Context, name: string, profile?: string): Promise<string> {
  return (await import('./settings.js')).loadWebhook(ctx, name, profile);
}

/** A notification URL saved in the profile: see settings.ts. */
export async function loadNotifyUrl(ctx: Context, name: string, profile?: string): Promise<string> {
  return (await import('./settings.js')).loadNotifyUrl(ctx, name, profile);
}
