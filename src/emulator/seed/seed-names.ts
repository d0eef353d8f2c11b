// The seeds `tds emulator --seed` offers, apart from the seed data so the command's options load cheaply.

export const SEED_NAMES = ['demo', 'empty'] as const;
export type SeedName = (typeof SEED_NAMES)[number];

/**
 * What the seed's action cells that are not final do: `live` (default) they run on like new ones, a step every
 * action delay; `pending` they stay as seeded (for tests that need every status in the demo data).
 */
export const SEEDED_ACTIONS = ['live', 'pending'] as const;
export type SeededActions = (typeof SEEDED_ACTIONS)[number];
