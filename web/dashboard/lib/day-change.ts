// The overview's "today" figures (confirmed_today, volume_usd_today, expired_today) count from
// midnight UTC, and no event says the day changed: a page left open would show yesterday's counts
// as today's until some payment changed. Each page reads them again as the UTC day begins, spread
// over a few seconds so that every open dashboard does not ask at the same instant (the server
// would otherwise compute every merchant's figures at once, in every process, at midnight).
// The day is the gateway's (serverNow, from its answers' Date header), not the device's.
import { serverNow } from './server-clock.ts';

const DAY_MS = 86_400_000;
/** Pages ask within this long after midnight. */
export const DAY_CHANGE_SPREAD_MS = 10_000;
/**
 * The longest wait between two looks at the clock. One long timer would keep the offset known when
 * it was set (the gateway's time is learned again with each answer) and, in a computer that slept,
 * can fire hours late; looking every minute follows both.
 */
const LOOK_MS = 60_000;

/**
 * Calls `fn` each time a UTC day begins by `now` (the gateway's clock; plus `spread()` ms) until the
 * returned stop is called: once a day, however `now` moves back or jumps.
 */
export function onEachUtcDay(fn: () => void, spread: () => number = () => Math.floor(Math.random() * DAY_CHANGE_SPREAD_MS), now: () => number = serverNow): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let day = Math.floor(now() / DAY_MS); // the day whose figures are shown
  let due = (day + 1) * DAY_MS + spread();
  const look = () => {
    const t = now();
    if (t >= due) {
      day = Math.max(day + 1, Math.floor(t / DAY_MS));
      due = (day + 1) * DAY_MS + spread();
      timer = setTimeout(look, Math.min(Math.max(due - t, 0), LOOK_MS));
      fn(); // after the next look is set: a throwing reload does not end the following days'
      return;
    }
    timer = setTimeout(look, Math.min(due - t, LOOK_MS));
  };
  timer = setTimeout(look, Math.min(Math.max(due - now(), 0), LOOK_MS));
  return () => clearTimeout(timer);
}
