// emulator/http/: the emulator's HTTP side. Surface: createEmulatorServer (server.ts: the server, the key
// check of each call, the request log with its secrets redacted), every route (routes.ts), what a route is
// called with and answers (route-table.ts), bodies, JSON answers and refusals (http-io.ts), --latency
// (latency.ts) and the requests held for the simulator (request-hold.ts).

export { ApiProblem, badRequest, isJsonContentType, keyErrorBody, readBody, sendJson, webhookErrorBody } from './http-io.js';
export { LatencySpecError, NetworkDelay, parseLatency, type LatencySpec } from './latency.js';
export { RequestHold } from './request-hold.js';
export { ok, WEBHOOK_PATH_PREFIX, type Reply, type Route, type RouteCall } from './route-table.js';
export { createEmulatorServer } from './server.js';
