import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  checkPaymentWebhookUrl, checkWebhookUrl, type Resolver, URL_DOES_NOT_RESOLVE, URL_NOT_ABSOLUTE, URL_NOT_HTTPS,
  URL_NOT_PUBLIC, URL_REQUIRED, URL_RESOLVE_TIMEOUT_MS,
} from './url-policy.ts';

// A fake DNS: names map to answers; anything else is NXDOMAIN. Counts its calls.
function fakeDns(table: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (host: string) => {
    calls.push(host);
    const answers = table[host];
    if (!answers) throw Object.assign(new Error(`queryA ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return answers.map((address) => ({ address, family: (address.includes(':') ? 6 : 4) as 4 | 6 }));
  };
  return Object.assign(resolve, { calls });
}

const dns = fakeDns({
  'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'mixed.example.com': ['93.184.216.34', '10.0.0.5'],
  'v6private.example.com': ['2606:4700::1', 'fd00::1'],
  'metadata.example.com': ['169.254.169.254'],
  'mapped.example.com': ['::ffff:127.0.0.1'],
  'empty.example.com': [],
  'localhost': ['93.184.216.34'], // a lying resolver must not make localhost public
});

const check = (url: unknown, allowPrivate = false) => checkWebhookUrl(url, { resolve: dns, allowPrivate });
const errorOf = async (url: unknown, allowPrivate = false) => {
  const r = await check(url, allowPrivate);
  return r.ok ? 'ok' : r.error;
};

describe('checkWebhookUrl', () => {
  it('accepts a public https URL with any path and query, returning every checked address', async () => {
    const r = await check('https://hooks.example.com/in/coming?x=1&y=2');
    expect(r).toMatchObject({ ok: true, url: 'https://hooks.example.com/in/coming?x=1&y=2' });
    if (r.ok) {
      expect(r.addresses).toEqual([
        { address: '93.184.216.34', family: 4 }, { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
      ]);
      expect(r.parsed.hostname).toBe('hooks.example.com');
    }
  });

  it.each([undefined, null, '', '   '])('url is required: %j', async (u) => {
    expect(await errorOf(u)).toBe(URL_REQUIRED);
  });

  // spec 7: `url is required` is for a missing or empty url; a value of another type is no absolute URL
  it.each([42, true, {}, ['https://hooks.example.com']])('a url of another type is not an absolute http(s) URL: %j', async (u) => {
    expect(await errorOf(u)).toBe(URL_NOT_ABSOLUTE);
  });

  it.each([
    '/relative/path', 'hooks.example.com/in', 'ftp://hooks.example.com/', 'mailto:a@b.c', 'javascript:alert(1)',
    'https://user:pass@hooks.example.com/', 'https://user@hooks.example.com/', 'https://:pass@hooks.example.com/',
    'https://@hooks.example.com/', 'https:hooks.example.com', 'https://', 'http://user:pw@127.0.0.1/',
  ])('not absolute http(s) or with credentials: %s', async (u) => {
    expect(await errorOf(u)).toBe(URL_NOT_ABSOLUTE);
  });

  it('an @ in the path or query is not a credential', async () => {
    expect(await errorOf('https://hooks.example.com/a@b?c=@d')).toBe('ok');
  });

  it('http is refused with its own message, before the host is looked at', async () => {
    expect(await errorOf('http://hooks.example.com/')).toBe(URL_NOT_HTTPS);
    expect(await errorOf('HTTP://10.0.0.1/')).toBe(URL_NOT_HTTPS);
  });

  it('a name with no DNS record, or with no answers, does not resolve', async () => {
    expect(await errorOf('https://nowhere.example.com/')).toBe(URL_DOES_NOT_RESOLVE);
    expect(await errorOf('https://empty.example.com/')).toBe(URL_DOES_NOT_RESOLVE);
  });

  it.each([
    'https://localhost/', 'https://LOCALHOST./', 'https://api.localhost/', 'https://127.0.0.1/', 'https://2130706433/',
    'https://0x7f.1/', 'https://10.1.2.3/', 'https://[::1]/', 'https://[::ffff:127.0.0.1]/', 'https://[fd00:ec2::254]/',
    'https://169.254.169.254/latest/meta-data', 'https://[fe80::1]/', 'https://100.64.1.1/', 'https://0.0.0.0/',
    'https://224.0.0.1/', 'https://255.255.255.255/', 'https://[64:ff9b::7f00:1]/',
    'https://mixed.example.com/', 'https://v6private.example.com/', 'https://metadata.example.com/',
    'https://mapped.example.com/',
  ])('not a public host: %s', async (u) => {
    expect(await errorOf(u)).toBe(URL_NOT_PUBLIC);
  });

  it('checks an IP literal directly, without asking DNS', async () => {
    const before = dns.calls.length;
    const r = await check('https://8.8.8.8:8443/x');
    expect(r).toMatchObject({ ok: true, addresses: [{ address: '8.8.8.8', family: 4 }] });
    const r6 = await check('https://[2606:4700:4700::1111]/');
    expect(r6).toMatchObject({ ok: true, addresses: [{ address: '2606:4700:4700::1111', family: 6 }] });
    expect(dns.calls.length).toBe(before);
  });

  it('asks the resolver again on every check (a later private answer is refused)', async () => {
    let answer = '93.184.216.34';
    const flipping: Resolver = async () => [{ address: answer, family: 4 }];
    expect((await checkWebhookUrl('https://rebind.example.com/', { resolve: flipping })).ok).toBe(true);
    answer = '127.0.0.1';
    expect(await checkWebhookUrl('https://rebind.example.com/', { resolve: flipping })).toEqual({ ok: false, error: URL_NOT_PUBLIC });
  });

  it('a resolver failure of any kind counts as not resolving', async () => {
    const broken: Resolver = async () => { throw Object.assign(new Error('timeout'), { code: 'ETIMEOUT' }); };
    expect(await checkWebhookUrl('https://x.example.com/', { resolve: broken })).toEqual({ ok: false, error: URL_DOES_NOT_RESOLVE });
  });

  describe('a resolver that does not answer (a DNS server that never replies)', () => {
    afterEach(() => { vi.useRealTimers(); });
    // asked, never answers: what dns.lookup does while getaddrinfo waits on a silent server
    const silent = (): Resolver & { asked: number } => {
      const r = Object.assign(async () => { r.asked++; return new Promise<never>(() => {}); }, { asked: 0 });
      return r;
    };

    it(`fails with "${URL_DOES_NOT_RESOLVE}" once the time limit has passed`, async () => {
      const never = silent();
      const started = performance.now();
      const r = await checkWebhookUrl('https://silent.example.com/hook', { resolve: never, resolveTimeoutMs: 50 });
      const took = performance.now() - started;
      expect(r).toEqual({ ok: false, error: URL_DOES_NOT_RESOLVE });
      expect(never.asked).toBe(1);
      expect(took).toBeGreaterThanOrEqual(45);
      expect(took).toBeLessThan(1000);
    }, 5000);

    it(`the limit is ${URL_RESOLVE_TIMEOUT_MS} ms unless told otherwise, for a payment's own URL too`, async () => {
      vi.useFakeTimers();
      let settled = false;
      const pending = checkPaymentWebhookUrl('https://silent.example.com/hook', { resolve: silent() }).finally(() => { settled = true; });
      await vi.advanceTimersByTimeAsync(URL_RESOLVE_TIMEOUT_MS - 1);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(await pending).toEqual({ ok: false, error: `webhook_url: ${URL_DOES_NOT_RESOLVE}` });
    }, 5000);

    it('an answer that comes after the limit is not used, and a late failure is nobody\'s', async () => {
      let answer!: (a: { address: string; family: 4 | 6 }[]) => void;
      const late: Resolver = () => new Promise((resolve) => { answer = resolve; });
      const r = await checkWebhookUrl('https://late.example.com/', { resolve: late, resolveTimeoutMs: 20 });
      answer([{ address: '93.184.216.34', family: 4 }]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(r).toEqual({ ok: false, error: URL_DOES_NOT_RESOLVE });
      // a lookup that fails after the limit raises no unhandled rejection (vitest would report one)
      let refuse!: (e: Error) => void;
      const lateFailure: Resolver = () => new Promise((_, reject) => { refuse = reject; });
      expect(await checkWebhookUrl('https://late.example.com/', { resolve: lateFailure, resolveTimeoutMs: 20 })).toEqual({ ok: false, error: URL_DOES_NOT_RESOLVE });
      refuse(Object.assign(new Error('getaddrinfo EAI_AGAIN late.example.com'), { code: 'EAI_AGAIN' }));
      await new Promise((resolve) => setImmediate(resolve));
    }, 5000);

    it('an answer within the limit is used as before', async () => {
      const quick: Resolver = () => new Promise((resolve) => setTimeout(() => resolve([{ address: '93.184.216.34', family: 4 }]), 5));
      expect(await checkWebhookUrl('https://quick.example.com/', { resolve: quick, resolveTimeoutMs: 1000 }))
        .toMatchObject({ ok: true, addresses: [{ address: '93.184.216.34', family: 4 }] });
    });
  });

  describe('allowPrivate (WEBHOOK_ALLOW_PRIVATE=1)', () => {
    it('allows http, loopback, private and localhost', async () => {
      expect(await errorOf('http://127.0.0.1:8080/hook', true)).toBe('ok');
      expect(await errorOf('http://[::1]:8080/hook', true)).toBe('ok');
      expect(await errorOf('https://mixed.example.com/', true)).toBe('ok');
      const r = await checkWebhookUrl('http://localhost:3000/', { allowPrivate: true, resolve: dns });
      expect(r).toMatchObject({ ok: true, addresses: [{ address: '93.184.216.34', family: 4 }] });
    });

    it('still requires an absolute URL without credentials and a host that resolves', async () => {
      expect(await errorOf('', true)).toBe(URL_REQUIRED);
      expect(await errorOf('ftp://127.0.0.1/', true)).toBe(URL_NOT_ABSOLUTE);
      expect(await errorOf('http://u:p@127.0.0.1/', true)).toBe(URL_NOT_ABSOLUTE);
      expect(await errorOf('http://nowhere.example.com/', true)).toBe(URL_DOES_NOT_RESOLVE);
    });
  });
});

describe('checkPaymentWebhookUrl', () => {
  it('prefixes every message with webhook_url: ', async () => {
    const err = async (u: unknown) => {
      const r = await checkPaymentWebhookUrl(u, { resolve: dns });
      return r.ok ? 'ok' : r.error;
    };
    expect(await err('http://hooks.example.com/')).toBe('webhook_url: url must use https');
    expect(await err('')).toBe('webhook_url: url is required');
    expect(await err('https://10.0.0.1/')).toBe('webhook_url: url must point at a public host');
    expect(await err('https://nowhere.example.com/')).toBe('webhook_url: url host does not resolve');
    expect(await err('ftp://x/')).toBe('webhook_url: url must be an absolute http(s) URL');
    expect(await err('https://hooks.example.com/p')).toBe('ok');
  });
});
