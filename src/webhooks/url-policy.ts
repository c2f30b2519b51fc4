// Where a webhook may be posted (spec 4.1 rule 1 and 5, spec 7 "Webhook routes"). Checked when a URL
// is set and again right before every attempt; the addresses checked are the ones the attempt must
// connect to, so a name that resolves differently a moment later (DNS rebinding) cannot redirect it.
import { lookup } from 'node:dns/promises';
import { ipFamily, isPublicAddress, type IpFamily } from './ip-ranges.ts';
import { longerThan } from '../platform/fields.ts';

export const URL_REQUIRED = 'url is required';
export const URL_NOT_ABSOLUTE = 'url must be an absolute http(s) URL';
export const URL_NOT_HTTPS = 'url must use https';
export const URL_DOES_NOT_RESOLVE = 'url host does not resolve';
export const URL_NOT_PUBLIC = 'url must point at a public host';
/** Every URL a merchant gives (CONTRACT.md "Values and formats"): it is copied into every event and delivery. */
export const URL_MAX_CHARS = 2048;
export const URL_TOO_LONG = `url is too long (${URL_MAX_CHARS} characters at most)`;
export const urlTooLong = (url: string): boolean => longerThan(url, URL_MAX_CHARS);
/** Prefix of the same messages for a payment's own `webhook_url`. */
export const PAYMENT_URL_PREFIX = 'webhook_url: ';

export interface ResolvedAddress {
  address: string;
  family: IpFamily;
}

/** Every A and AAAA answer for a name; an empty list or a rejection means it does not resolve. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/**
 * How long a URL's host name may take to resolve before it counts as not resolving (README "Receiving
 * webhooks"): dns.lookup has no limit of its own, and a DNS server that never answers would otherwise
 * hold the request (setting a URL, creating a payment) for as long as the system resolver waits.
 */
export const URL_RESOLVE_TIMEOUT_MS = 3_000;

export const systemResolver: Resolver = async (hostname) => {
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

export interface UrlPolicyOptions {
  /** WEBHOOK_ALLOW_PRIVATE=1: http and private hosts allowed (development only). */
  allowPrivate?: boolean;
  resolve?: Resolver;
  /** The time limit of `resolve`; URL_RESOLVE_TIMEOUT_MS unless given (tests give a shorter one). */
  resolveTimeoutMs?: number;
  /** Put before every message, e.g. PAYMENT_URL_PREFIX. */
  messagePrefix?: string;
}

export type UrlCheck =
  | { ok: true; url: string; parsed: URL; addresses: ResolvedAddress[] }
  | { ok: false; error: string };

// Names that always mean this machine, whatever a resolver says (RFC 6761).
function isLocalhostName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

// The text between `scheme://` and the path, query or fragment (backslashes count as slashes in http(s)).
function authority(url: string): string {
  return /^[a-z]+:[\\/]*([^\\/?#]*)/i.exec(url)?.[1] ?? '';
}

/** The host of a parsed URL as a resolver or socket wants it: no IPv6 brackets, no trailing dot. */
export function bareHost(parsed: URL): string {
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

/** The resolver's answer if it comes within `ms`; a rejection otherwise. A later answer (or failure) goes nowhere. */
function resolveWithin(resolve: Resolver, host: string, ms: number): Promise<ResolvedAddress[]> {
  // race() keeps listening to `answer`: one that comes (or fails) after the limit is dropped there
  const answer = resolve(host);
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${host} did not resolve within ${ms} ms`)), ms);
  });
  return Promise.race([answer, limit]).finally(() => clearTimeout(timer));
}

export async function checkWebhookUrl(input: unknown, options: UrlPolicyOptions = {}): Promise<UrlCheck> {
  const fail = (message: string): UrlCheck => ({ ok: false, error: (options.messagePrefix ?? '') + message });
  const allowPrivate = options.allowPrivate === true;

  // spec 7: `url is required` is a missing or empty url; a value of another type (a number, an
  // array) was given and is no absolute URL, as success_url and cancel_url answer it
  if (input === undefined || input === null || (typeof input === 'string' && input.trim() === '')) return fail(URL_REQUIRED);
  if (typeof input !== 'string') return fail(URL_NOT_ABSOLUTE);
  const url = input.trim();
  if (urlTooLong(url)) return fail(URL_TOO_LONG);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return fail(URL_NOT_ABSOLUTE);
  }
  // `https:host` and `https:/host` parse too; an absolute URL spells its `//`.
  if (!/^https?:\/\//i.test(url)) return fail(URL_NOT_ABSOLUTE);
  // Refuse any user-info, even an empty one (`https://@host`) that the parser drops silently.
  if (parsed.username !== '' || parsed.password !== '' || authority(url).includes('@')) return fail(URL_NOT_ABSOLUTE);
  if (parsed.protocol === 'http:' && !allowPrivate) return fail(URL_NOT_HTTPS);

  const host = bareHost(parsed);
  if (host === '') return fail(URL_NOT_ABSOLUTE);
  const literal = ipFamily(host);
  if (literal !== 0) {
    if (!allowPrivate && !isPublicAddress(host)) return fail(URL_NOT_PUBLIC);
    return { ok: true, url, parsed, addresses: [{ address: host, family: literal }] };
  }
  if (!allowPrivate && isLocalhostName(host.toLowerCase())) return fail(URL_NOT_PUBLIC);

  let addresses: ResolvedAddress[];
  try {
    addresses = await resolveWithin(options.resolve ?? systemResolver, host, options.resolveTimeoutMs ?? URL_RESOLVE_TIMEOUT_MS);
  } catch {
    return fail(URL_DOES_NOT_RESOLVE);
  }
  if (addresses.length === 0) return fail(URL_DOES_NOT_RESOLVE);
  // One private answer is enough to refuse: the connection could be steered to any of them.
  if (!allowPrivate && addresses.some((a) => !isPublicAddress(a.address))) return fail(URL_NOT_PUBLIC);
  return { ok: true, url, parsed, addresses };
}

/** The same rules for a payment's own `webhook_url`, messages prefixed `webhook_url: `. */
export function checkPaymentWebhookUrl(input: unknown, options: Omit<UrlPolicyOptions, 'messagePrefix'> = {}): Promise<UrlCheck> {
  return checkWebhookUrl(input, { ...options, messagePrefix: PAYMENT_URL_PREFIX });
}
