// @ts-check
// What the bundle gives the MCP SDK for `@modelcontextprotocol/server/_shims` (scripts/bundle.js): the SDK's
// Node shims, with its lighter JSON Schema validator (@cfworker/json-schema, also the SDK's own, for Workers)
// in place of Ajv. The SDK uses that validator only for elicitation, which tds's server never asks for (its
// tools' arguments and results are checked against their zod schemas): Ajv was 40 % of the code `tds mcp`
// compiles before it answers `initialize`, and its answer comes 8 % sooner without it (paired).
export { CfWorkerJsonSchemaValidator as DefaultJsonSchemaValidator } from '@modelcontextprotocol/server/validators/cf-worker';
export { default as process } from 'node:process';
