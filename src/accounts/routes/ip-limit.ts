// Per-IP limits of spec part 8 (sign-in, sign-up, coin choice, checkout simulate, ...).
import net from 'node:net';
import type { FastifyRequest } from 'fastify';
import { tooManyRequests } from '../../platform/errors.ts';
import type { RateLimiter } from '../../platform/rate-limit.ts';

/**
 * The key a client address is limited under: an IPv4 address as it is; an IPv6 address by its /64,
 * the block one subscriber gets (keying the full address would give one client 2^64 budgets). An
 * IPv4 address written as IPv6 (::ffff:a.b.c.d, in any of its notations: `0:0:0:0:0:ffff:…`, hex
 * `::ffff:cb00:7109`, as a proxy may forward it) is that IPv4 address: not the /64 every such
 * client would otherwise share. A port some proxies add (`203.0.113.9:5678`, `[2001:db8::1]:5678`)
 * is dropped: each source port would otherwise be a budget of its own.
 */
export function ipLimitKey(forwarded: string): string {
  const ip = withoutPort(forwarded);
  if (!net.isIPv6(ip)) return ip;
  const h = expandIpv6(ip);
  if (h.slice(0, 5).every((x) => x === '0') && h[5] === 'ffff') {
    const [hi, lo] = [parseInt(h[6], 16), parseInt(h[7], 16)];
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return `${h.slice(0, 4).join(':')}::/64`;
}

function withoutPort(ip: string): string {
  const v4 = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(ip);
  if (v4) return v4[1];
  const v6 = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(ip);
  return v6 ? v6[1] : ip;
}

/** The eight hextets of an IPv6 address (zone dropped, `::` expanded, an IPv4 tail converted). */
function expandIpv6(ip: string): string[] {
  let s = ip.split('%')[0].toLowerCase();
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number);
    s = s.slice(0, v4.index) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = s.split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const middle = tail === undefined ? [] : Array(8 - h.length - t.length).fill('0');
  return [...h, ...middle, ...t].map((x) => x.replace(/^0+(?=.)/, ''));
}

export async function limitByIp(limiter: RateLimiter, bucket: string, req: FastifyRequest, perSecond: number, nowMs: number): Promise<void> {
  if (!(await limiter.take(`${bucket}:${ipLimitKey(req.ip)}`, perSecond, 1000, nowMs))) throw tooManyRequests(1000);
}

/**
 * A per-IP limit as a route's `onRequest` hook. It runs before the body is read: asked from the
 * handler, a body that is not JSON was answered 400 first, never counted, and past the limit got 400
 * where any other request gets 429 (CONTRACT.md: N requests in any one-second window).
 */
export const ipLimitHook = (limiter: RateLimiter, bucket: string, perSecond: number, nowMs: () => number) =>
  async (req: FastifyRequest): Promise<void> => limitByIp(limiter, bucket, req, perSecond, nowMs());

/** Routes that tell whether an email is registered anywhere (adding a member, inviting one): as many a
 * second as sign-up per client address, and per signed-in member a budget over ten seconds (a team
 * added by a script in a burst passes; a member probing emails from many addresses is held to two a
 * second), so they cannot enumerate emails. */
export const EMAIL_PROBE_RATE = 5;
export const EMAIL_PROBES_PER_MEMBER = 20;
export const EMAIL_PROBE_MEMBER_WINDOW_MS = 10_000;
export async function limitEmailProbes(limiter: RateLimiter, req: FastifyRequest, userId: string, nowMs: number): Promise<void> {
  await limitByIp(limiter, 'email-probe', req, EMAIL_PROBE_RATE, nowMs);
  if (!(await limiter.take(`email-probe-user:${userId}`, EMAIL_PROBES_PER_MEMBER, EMAIL_PROBE_MEMBER_WINDOW_MS, nowMs))) throw tooManyRequests(EMAIL_PROBE_MEMBER_WINDOW_MS);
}
