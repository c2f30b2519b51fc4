// The webhook signature of spec 6.1: `t=<unix seconds>,v1=<hex>`, where v1 is the lowercase hex
// HMAC-SHA256 of `t + "." + raw body bytes`, keyed with the mode's secret taken as UTF-8 text.
// Every attempt is signed afresh, so the caller passes the second it is about to send.
import crypto from 'node:crypto';

export const SIGNATURE_VERSION = 'v1';

/**
 * Lowercase hex HMAC-SHA256 of `<t>.<body>`; the body is hashed as the exact bytes that are sent, and
 * so is `t`: a receiver passes the header's text as it came (`0<seconds>` is another message).
 */
export function signatureDigest(secret: string, body: string | Uint8Array, t: number | string): string {
  // A string key is taken as UTF-8, the same bytes; a Buffer key costs several times more per call.
  const hmac = crypto.createHmac('sha256', secret);
  hmac.update(`${t}.`, 'utf8');
  hmac.update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
  return hmac.digest('hex');
}

/** The `X-Webhook-Signature` value for one attempt. */
export function signatureHeader(secret: string, body: string | Uint8Array, unixSeconds: number): string {
  if (!Number.isSafeInteger(unixSeconds) || unixSeconds < 0) {
    throw new RangeError(`signature time must be whole unix seconds, got ${unixSeconds}`);
  }
  return `t=${unixSeconds},${SIGNATURE_VERSION}=${signatureDigest(secret, body, unixSeconds)}`;
}

/** Whole unix seconds of a moment, the `t` of a signature. */
export function unixSeconds(at: Date): number {
  return Math.floor(at.getTime() / 1000);
}
