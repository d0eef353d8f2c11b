// emulator/webhook/: the webhook. Surface: handleWebhook and webhookCall (route.ts: the call, its body and
// its route), Intake (intake.ts: the body's forms, and its objects made rows, visible after the intake
// window) and IntakeLimits (limits.ts: a webhook's lifetime budget and a table's capacity, off by default).

export { Intake, webhookRow } from './intake.js';
export { IntakeLimits } from './limits.js';
export { handleWebhook, webhookCall } from './route.js';
