// The gateway's time, as the dashboard learns it from the `Date` header of its answers. The figures'
// "today" is the gateway's UTC day: a device clock set by hand, or minutes off, must not decide when
// it begins. Unlike the checkout page's clock (web/checkout/lib/server-clock.ts), which takes the
// header's middle and trusts a device within 2 s, this one keeps the earliest time the gateway can
// have had: reading the figures a second late is harmless, a second early shows yesterday's all day.

let offsetMs = 0;

/**
 * Learns the gateway's time from an answer's `Date` header (none, or unreadable: nothing changes).
 * The header's whole second had begun when it was written, and the answer took some time to come:
 * the gateway's clock read at least that when it arrived.
 */
export function heardServerTime(dateHeader: string | null, receivedAt: number = Date.now()): void {
  const at = dateHeader ? Date.parse(dateHeader) : NaN;
  if (Number.isFinite(at)) offsetMs = at - receivedAt;
}

/** Now by the gateway's clock (never ahead of it), in milliseconds since the epoch. */
export const serverNow = (): number => Date.now() + offsetMs;
