// The overview's "today" figures (confirmed_today, volume_usd_today, expired_today) count from
// midnight UTC, and no event says the day changed: a page left open would show yesterday's counts
// as today's until some payment changed. Each page reads them again as the UTC day begins, spread
// over a few seconds so that every open dashboard does not ask at the same instant (the server
// would otherwise compute every merchant's figures at once, in every process, at midnight).
const DAY_MS = 86_400_000;
/** Pages ask within this long after midnight. */
export const DAY_CHANGE_SPREAD_MS = 10_000;

/** Calls `fn` each time a UTC day begins (plus `spread()` ms) until the returned stop is called. */
export function onEachUtcDay(fn: () => void, spread: () => number = () => Math.floor(Math.random() * DAY_CHANGE_SPREAD_MS)): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    const now = Date.now();
    const next = (Math.floor(now / DAY_MS) + 1) * DAY_MS;
    timer = setTimeout(() => { fn(); arm(); }, next - now + spread());
  };
  arm();
  return () => clearTimeout(timer);
}
