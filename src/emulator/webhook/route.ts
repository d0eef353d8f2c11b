import type { IncomingMessage } from 'node:http';
import { WEBHOOK_MAX_BODY_BYTES, type WebhookSuccessBody } from '../../service/index.js';
import { ApiProblem, badRequest } from '../http/errors.js';
import { isJsonContentType, readBody } from '../http/http-io.js';
import type { Intake } from './intake.js';
import type { EmulatorState } from '../store/state.js';
import type { RequestLogEntry } from '../store/types.js';
import { parseWebhookBody } from './body.js';

export interface WebhookDeps {
  state: EmulatorState;
  intake: Intake;
}

/** POST and HEAD on a webhook URL. Returns the success body (undefined for HEAD); refusals are thrown. */
export async function handleWebhook(
  deps: WebhookDeps,
  webhookId: string,
  req: IncomingMessage,
  entry?: RequestLogEntry,
): Promise<WebhookSuccessBody | undefined> {
  const table = deps.state.tableByWebhookId(webhookId);
  if (!table) throw new ApiProblem(404, 'Webhook not found');
  if (req.method === 'HEAD') return undefined;
  if (!isJsonContentType(req)) throw badRequest('Content-Type must be application/json');
  const read = await readBody(req, WEBHOOK_MAX_BODY_BYTES);
  if ('tooLarge' in read) {
    throw new ApiProblem(413, `request body is over ${WEBHOOK_MAX_BODY_BYTES} bytes (1 MB); send fewer objects per request`, {
      connection: 'close',
    });
  }
  if (entry) entry.bodyBytes = read.body.length;
  const objects = parseWebhookBody(read.body);
  if (entry) entry.objects = objects.total;
  deps.intake.add(table, objects.rows);
  return { success: true, message: `${objects.rows.length} records are being processed` };
}
