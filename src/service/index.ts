export * from './types.js';
export * from './limits.js';
export * from './operators.js';
export * from './filters.js';
