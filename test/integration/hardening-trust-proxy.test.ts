// TRUST_PROXY (issue 17 finding 1, CONTRACT.md): the client address behind a proxy is the entry the
// trusted proxy appended, never one the client wrote itself; per-IP limits key IPv6 by /64 (finding 2).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { uid, tokenHeader, signupAccount } from '../harness/accounts.ts';
import { ManualClock } from '../../src/platform/clock.ts';

const login = (t: TestApp, remoteAddress: string, xff?: string) => t.app.inject({
  method: 'POST', url: '/merchant/login', remoteAddress,
  headers: xff === undefined ? {} : { 'x-forwarded-for': xff },
  payload: { email: `nobody-${uid()}@example.com`, password: 'wrong-password' },
});

describeEachDb('client addresses behind proxies', (h) => {
  let one: TestApp;
  let listed: TestApp;
  let direct: TestApp;
  const clock = new ManualClock();
  beforeAll(async () => {
    one = await startTestApp(h.db(), { clock, env: { TRUST_PROXY: '1' } });
    listed = await startTestApp(h.db(), { clock, env: { TRUST_PROXY: '10.0.0.1, 10.9.0.0/16' } });
    direct = await startTestApp(h.db(), { clock });
  });
  afterAll(async () => { await one.close(); await listed.close(); await direct.close(); });

  it('TRUST_PROXY=1: a forged left-most X-Forwarded-For entry neither escapes the sign-in limit nor becomes the client', async () => {
    clock.advance(5000);
    for (let i = 0; i < 5; i++) expect((await login(one, '10.0.0.1', `203.0.113.${i}, 198.51.100.7`)).statusCode).toBe(401);
    const sixth = await login(one, '10.0.0.1', '203.0.113.99, 198.51.100.7');
    expect(sixth.statusCode).toBe(429);
    expect(sixth.json()).toEqual({ error: 'rate limit exceeded' });
    // Another client behind the same proxy has a budget of its own.
    expect((await login(one, '10.0.0.1', '198.51.100.8')).statusCode).toBe(401);
  });

  it('TRUST_PROXY=1: the audit ip is the address the proxy appended', async () => {
    const acct = await signupAccount(one.app);
    const made = await one.app.inject({
      method: 'POST', url: '/merchant/api-keys', remoteAddress: '10.0.0.1', headers: { 'x-forwarded-for': '6.6.6.6, 198.51.100.20', ...tokenHeader(acct.accessToken) },
      payload: { name: 'k', livemode: false },
    });
    expect(made.statusCode, made.body).toBe(201);
    const audit = await one.app.inject({ method: 'GET', url: '/merchant/audit', headers: tokenHeader(acct.accessToken) });
    const text = audit.body;
    expect(text).toContain('198.51.100.20');
    expect(text).not.toContain('6.6.6.6');
  });

  it('TRUST_PROXY=1: an IPv4 client forwarded in any IPv6 notation is that IPv4 client, with a budget of its own', async () => {
    clock.advance(5000);
    // 198.51.100.60 is c633:643c.
    const forms = ['::ffff:198.51.100.60', '0:0:0:0:0:ffff:198.51.100.60', '::ffff:c633:643c', '198.51.100.60', '::FFFF:198.51.100.60'];
    for (const xff of forms) expect((await login(one, '10.0.0.1', xff)).statusCode, xff).toBe(401);
    const sixth = await login(one, '10.0.0.1', '0:0:0:0:0:FFFF:C633:643C');
    expect([sixth.statusCode, sixth.json()]).toEqual([429, { error: 'rate limit exceeded' }]);
    // Other IPv4 clients forwarded the same way are not held by that client's budget.
    expect((await login(one, '10.0.0.1', '0:0:0:0:0:ffff:198.51.100.61')).statusCode).toBe(401);
    expect((await login(one, '10.0.0.1', '::ffff:c633:643e')).statusCode).toBe(401);
  });

  it('unset: a client connecting over an IPv4-mapped IPv6 socket shares its budget with its plain IPv4 address', async () => {
    clock.advance(5000);
    for (let i = 0; i < 5; i++) expect((await login(direct, i % 2 ? '::ffff:192.0.2.70' : '192.0.2.70')).statusCode).toBe(401);
    expect((await login(direct, '::ffff:192.0.2.70')).statusCode).toBe(429);
    expect((await login(direct, '::ffff:192.0.2.71')).statusCode).toBe(401);
  });

  it('a list of proxies: the client is the right-most entry not among them', async () => {
    clock.advance(5000);
    for (let i = 0; i < 5; i++) expect((await login(listed, '10.0.0.1', `203.0.113.${i}, 198.51.100.9, 10.9.4.4`)).statusCode).toBe(401);
    expect((await login(listed, '10.0.0.1', '1.1.1.1, 198.51.100.9, 10.9.4.4')).statusCode).toBe(429);
    // A peer that is not a listed proxy is the client, whatever it forwards.
    for (let i = 0; i < 5; i++) expect((await login(listed, '192.0.2.50', `198.51.100.${i + 30}`)).statusCode).toBe(401);
    expect((await login(listed, '192.0.2.50', '198.51.100.77')).statusCode).toBe(429);
  });

  it('unset: X-Forwarded-For is ignored', async () => {
    clock.advance(5000);
    for (let i = 0; i < 5; i++) expect((await login(direct, '192.0.2.60', `198.51.100.${i}`)).statusCode).toBe(401);
    expect((await login(direct, '192.0.2.60', '198.51.100.200')).statusCode).toBe(429);
  });

  it('IPv6 clients share one budget per /64', async () => {
    clock.advance(5000);
    for (let i = 1; i <= 5; i++) expect((await login(direct, `2001:db8:aa:bb::${i.toString(16)}`)).statusCode).toBe(401);
    expect((await login(direct, '2001:db8:aa:bb:ffff:1:2:3')).statusCode).toBe(429);
    expect((await login(direct, '2001:db8:aa:bc::1')).statusCode).toBe(401);
  });
});
