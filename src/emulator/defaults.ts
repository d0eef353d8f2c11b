// The emulator's defaults, apart from the emulator itself so `tds emulator --help` can show them cheaply.

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8787;
export const DEFAULT_INGEST_DELAY_MS = 5_000;
export const DEFAULT_ACTION_DELAY_MS = 3_000;
