// No test reads the developer's environment or config: tds, in-process or spawned, sees no TDS_*
// variable but those a test sets, no colour settings, and a config folder that does not exist.

/** Where tds looks for config.json unless a test gives it a folder of its own. */
export const NO_CONFIG_DIR = '/nonexistent-tds-config';

export type EnvOverrides = Record<string, string | undefined>;

/**
 * What every run starts from: no colour, no config, no pager, and never the developer's OS keychain (the
 * keychain tests turn it on inside a Secret Service of their own). (The rate scale is set where a client meets an emulator.)
 */
const BASE: Record<string, string> = { NO_COLOR: '1', TDS_CONFIG_DIR: NO_CONFIG_DIR, TDS_PAGER: '', TDS_KEYCHAIN: 'off' };

/** Whether a variable of this process must not reach tds. */
export const isPrivate = (key: string): boolean => key.startsWith('TDS_') || key === 'FORCE_COLOR' || key === 'NO_COLOR' || key === 'PAGER';

/** The environment of an in-process run: nothing of this process's, only the base and the test's overrides (undefined removes). */
export function runEnv(overrides: EnvOverrides = {}): Record<string, string> {
  return apply({ ...BASE }, overrides);
}

/** The environment of a spawned tds: this process's (PATH, HOME…) without any TDS_* or colour variable, then as runEnv. */
export function childEnv(overrides: EnvOverrides = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !isPrivate(key)) env[key] = value;
  }
  return apply(Object.assign(env, BASE), overrides);
}

function apply(env: Record<string, string>, overrides: EnvOverrides): Record<string, string> {
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

/** The variables that make stdout (and stderr) a terminal of `columns` columns, in colour or not. */
export function terminalEnv(columns: number, color = false): EnvOverrides {
  return { TDS_FORCE_TTY: '1', COLUMNS: String(columns), NO_COLOR: color ? undefined : '1' };
}
