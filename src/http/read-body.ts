export interface BodyLimits {
  /** Past this many bytes the body is dropped: an error, or (with `keepStart`) the start is kept. */
  maxBytes: number;
  /** The whole body must arrive within this time (a server that drips a byte at a time never stalls long enough for the idle timeout). */
  deadlineMs: number;
  /** Return the first `maxBytes` instead of failing (a webhook's answer is only informative). */
  keepStart?: boolean;
}

/** Transport failures of our own making, with codes as stable as undici's. */
export const RESPONSE_TOO_LARGE = 'TDS_RESPONSE_TOO_LARGE';
export const RESPONSE_DEADLINE = 'TDS_RESPONSE_DEADLINE';

type Body = AsyncIterable<Buffer> & { destroy(error?: Error): unknown };

/** A response body as text, within the limits; the connection is dropped when they are passed. */
export async function readBodyText(body: Body, limits: BodyLimits, declaredBytes?: number): Promise<string> {
  if (!limits.keepStart && declaredBytes !== undefined && declaredBytes > limits.maxBytes) {
    body.destroy();
    throw tooLarge(limits.maxBytes);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const timer = setTimeout(() => body.destroy(deadline(limits.deadlineMs)), limits.deadlineMs);
  try {
    for await (const chunk of body) {
      size += chunk.length;
      if (size > limits.maxBytes) {
        body.destroy();
        if (!limits.keepStart) throw tooLarge(limits.maxBytes);
        chunks.push(chunk.subarray(0, chunk.length - (size - limits.maxBytes)));
        break;
      }
      chunks.push(chunk);
    }
  } finally {
    clearTimeout(timer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function tooLarge(maxBytes: number): Error {
  return Object.assign(new Error(`the response is larger than ${maxBytes} bytes`), { code: RESPONSE_TOO_LARGE });
}

function deadline(ms: number): Error {
  return Object.assign(new Error(`the response did not arrive in full within ${ms} ms`), { code: RESPONSE_DEADLINE });
}
