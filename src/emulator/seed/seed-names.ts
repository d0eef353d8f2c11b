// The seeds `tds emulator --seed` offers, apart from the seed data so the command's options load cheaply.

export const SEED_NAMES = ['demo', 'empty'] as const;
export type SeedName = (typeof SEED_NAMES)[number];
