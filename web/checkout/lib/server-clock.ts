// The gateway's time, as the page tells it. A customer's device clock can be minutes off (set by
// hand, a phone without network time): the countdown to `expires_at` and the end of the late window
// are read against the gateway's clock, learned from the `Date` header of its answers.

/** `Date` carries whole seconds: a difference below this is its rounding and the trip, not a wrong clock. */
const TRUST_DEVICE_WITHIN_MS = 2_000;

let offsetMs = 0;

/** Learns the gateway's time from an answer's `Date` header (no header, as across origins without it: nothing changes). */
export function heardServerTime(dateHeader: string | null, receivedAt: number = Date.now()): void {
  const at = dateHeader ? Date.parse(dateHeader) : NaN;
  if (!Number.isFinite(at)) return;
  // The header's second began up to 1 s before it was written: its middle is the best guess.
  const off = at + 500 - receivedAt;
  offsetMs = Math.abs(off) < TRUST_DEVICE_WITHIN_MS ? 0 : off;
}

/** Now by the gateway's clock, in milliseconds since the epoch. */
export const serverNow = (): number => Date.now() + offsetMs;
