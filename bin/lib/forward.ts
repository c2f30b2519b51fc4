// One event posted to the developer's URL exactly as the gateway posts a webhook (spec 6.1 headers;
// signed afresh with `t` = now). X-Webhook-Id is the event id: a forwarded event has no delivery.
import { USER_AGENT } from '../../src/webhooks/http-attempt.ts';
import { signatureHeader, unixSeconds } from '../../src/webhooks/signing.ts';
import type { ListenedEvent } from '../../src/listen/protocol.ts';

export const FORWARD_TIMEOUT_MS = 10_000;

export interface Forwarded {
  event: ListenedEvent;
  status: number | null;
  error: string | null;
  millis: number;
}

export async function forwardEvent(event: ListenedEvent, to: string, secret: string, now: () => Date = () => new Date()): Promise<Forwarded> {
  const started = performance.now();
  try {
    const res = await fetch(to, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'x-webhook-id': event.id,
        'x-webhook-event': event.type,
        'x-webhook-attempt': '1',
        'x-webhook-signature': signatureHeader(secret, event.body, unixSeconds(now())),
      },
      body: event.body,
    });
    await res.arrayBuffer();
    return { event, status: res.status, error: null, millis: Math.round(performance.now() - started) };
  } catch (err) {
    return { event, status: null, error: err instanceof Error ? err.message : String(err), millis: Math.round(performance.now() - started) };
  }
}
