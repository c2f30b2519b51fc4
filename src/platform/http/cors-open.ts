// The routes open to any website (spec 1: the public checkout API, /checkout* and /tokens;
// CONTRACT.md: POST /l/{slug}/payments and POST /referrals/{code}/click). Each registers
// @fastify/cors in its own scope; these headers are for the answers written before that scope runs
// (a URL the router cannot decode, a NUL in the query), so a browser page can still read the error.

/** Headers the checkout API also shows other origins: its page counts down by the gateway's clock. */
export const CHECKOUT_EXPOSED_HEADERS = 'Date';

const OPEN: ReadonlyArray<{ path: RegExp; exposed?: string }> = [
  { path: /^\/checkout(\/|$)/, exposed: CHECKOUT_EXPOSED_HEADERS },
  { path: /^\/tokens(\/|$)/ },
  { path: /^\/l\/[^/]*\/payments\/?$/ },
  { path: /^\/referrals(\/|$)/ },
];

/** The CORS headers of a plain (not preflight) answer at `url`, or none for a route not open. */
export function corsOpenHeaders(url: string): Record<string, string> | null {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const open = OPEN.find((o) => o.path.test(path));
  if (open === undefined) return null;
  return { 'access-control-allow-origin': '*', ...(open.exposed ? { 'access-control-expose-headers': open.exposed } : {}) };
}
