// The operating system's keychain (macOS Keychain, Windows Credential Manager, the Secret Service of
// GNOME Keyring or KWallet on Linux) through @napi-rs/keyring: one entry per profile, service "tds",
// account the profile's name. The native module is loaded only when a key is stored or read there.

import { UsageError } from '../core/index.js';

const SERVICE = 'tds';
/** A keychain that does not answer within this long (a Secret Service waiting to be started) counts as none. */
const ANSWER_MS = 5_000;

/** Where a profile's API key lives: `keychain` (the OS keychain) or `file` (config.json, mode 0600). */
export type KeyStore = 'keychain' | 'file';

export class KeychainUnavailable extends Error {
  constructor(readonly reason: string) {
    super(`the OS keychain did not answer (${reason})`);
  }
}

/** TDS_KEYCHAIN=off keeps every key in the file (a container, a test, a user's choice). */
export function keychainEnabled(env: NodeJS.ProcessEnv): boolean {
  const value = env.TDS_KEYCHAIN?.trim().toLowerCase();
  if (value === undefined || value === '' || value === 'on' || value === 'auto') return true;
  if (value === 'off') return false;
  throw new UsageError(`TDS_KEYCHAIN must be on or off (got "${env.TDS_KEYCHAIN}")`);
}

type AsyncEntryClass = typeof import('@napi-rs/keyring').AsyncEntry;

async function entryFor(profile: string): Promise<InstanceType<AsyncEntryClass>> {
  let AsyncEntry: AsyncEntryClass;
  try {
    ({ AsyncEntry } = await import('@napi-rs/keyring'));
  } catch (error) {
    throw new KeychainUnavailable(`its module did not load: ${(error as Error).message}`);
  }
  return new AsyncEntry(SERVICE, profile);
}

/** Runs one keychain call with a bound; every failure becomes KeychainUnavailable (its message names no secret). */
async function ask<T>(call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const signal = AbortSignal.timeout(ANSWER_MS);
  try {
    return await call(signal);
  } catch (error) {
    if (error instanceof KeychainUnavailable) throw error;
    const reason = signal.aborted ? `no answer in ${ANSWER_MS / 1000} s` : String((error as Error).message ?? error);
    throw new KeychainUnavailable(reason.replace(/\s+/g, ' ').trim());
  }
}

export async function readKeychainKey(profile: string): Promise<string | null> {
  const entry = await entryFor(profile);
  return ask((signal) => entry.getPassword(signal));
}

export async function writeKeychainKey(profile: string, key: string): Promise<void> {
  const entry = await entryFor(profile);
  await ask((signal) => entry.setPassword(key, signal));
  // A store that takes the key and gives back something else (or nothing) is no store for it.
  if ((await ask((signal) => entry.getPassword(signal))) !== key) {
    throw new KeychainUnavailable('it did not give back the key it was given');
  }
}

/** Removes the profile's entry; true when there was one. */
export async function removeKeychainKey(profile: string): Promise<boolean> {
  const entry = await entryFor(profile);
  return ask((signal) => entry.deletePassword(signal));
}
