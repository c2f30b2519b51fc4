// Issue 17 findings 3, 6 and 9: failed password re-checks and wrong admin tokens are limited, a
// rotated refresh cookie cannot sign out (it is reuse), and adding members cannot enumerate emails.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { cookieOf, randomIp, signIn, signupAccount, tokenHeader, uid, type Account } from '../harness/accounts.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { ADMIN_MAX_FAILURES } from '../../src/admin/guard.ts';

describeEachDb('accounts hardening', (h) => {
  let t: TestApp;
  const clock = new ManualClock();
  beforeAll(async () => { t = await startTestApp(h.db(), { clock }); });
  afterAll(async () => { await t.close(); });

  const addAddress = (a: Account, password: string) => t.app.inject({
    method: 'POST', url: '/merchant/payout-addresses', remoteAddress: randomIp(), headers: tokenHeader(a.accessToken),
    payload: { token: 'ETH', address: privateKeyToAccount(generatePrivateKey()).address, password },
  });

  it('5 wrong passwords in 15 minutes make every re-check of that member 429 until the window passes', async () => {
    const a = await signupAccount(t.app);
    // The right password never counts: many additions in a row are fine.
    for (let i = 0; i < 7; i++) expect((await addAddress(a, a.password)).statusCode).toBe(201);
    for (let i = 0; i < 5; i++) {
      const res = await addAddress(a, 'wrong-password');
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'password is incorrect' });
    }
    const limited = await addAddress(a, a.password);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({ error: 'rate limit exceeded' });
    // The longest the member can have to wait: the whole window.
    expect(limited.headers['retry-after']).toBe('900');
    // The password change shares the count (same member).
    const change = await t.app.inject({ method: 'POST', url: '/merchant/me/password', headers: tokenHeader(a.accessToken), payload: { current_password: a.password, new_password: 'another-password-1' } });
    expect(change.statusCode).toBe(429);
    // Another member of the account is not affected.
    const other = await signupAccount(t.app);
    expect((await addAddress(other, other.password)).statusCode).toBe(201);
    clock.advance(15 * 60_000 + 1);
    const again = { ...a, accessToken: (await signIn(t.app, a.email)).accessToken };
    expect((await addAddress(again, a.password)).statusCode).toBe(201);
  });

  it('only wrong passwords count: refused addresses and a short new password never lead to a 429', async () => {
    const a = await signupAccount(t.app);
    const bad = () => t.app.inject({
      method: 'POST', url: '/merchant/payout-addresses', remoteAddress: randomIp(), headers: tokenHeader(a.accessToken),
      payload: { token: 'ETH', address: 'not-an-address', password: a.password },
    });
    for (let i = 0; i < 5; i++) expect((await bad()).statusCode).toBe(400);
    const short = await t.app.inject({ method: 'POST', url: '/merchant/me/password', headers: tokenHeader(a.accessToken), payload: { current_password: a.password, new_password: 'short' } });
    expect(short.statusCode).toBe(400);
    expect((await addAddress(a, a.password)).statusCode).toBe(201);
  });

  it('the password change counts its wrong current passwords too', async () => {
    const a = await signupAccount(t.app);
    const change = (current: string) => t.app.inject({ method: 'POST', url: '/merchant/me/password', headers: tokenHeader(a.accessToken), payload: { current_password: current, new_password: 'another-password-1' } });
    for (let i = 0; i < 5; i++) expect((await change(`wrong-${i}-password`)).json()).toEqual({ error: 'current password is incorrect' });
    expect((await change(a.password)).statusCode).toBe(429);
  });

  it('while the member\'s re-checks are refused, a password change body refused before its password is checked still answers its 400', async () => {
    const a = await signupAccount(t.app);
    const change = (payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/merchant/me/password', headers: tokenHeader(a.accessToken), payload });
    for (let i = 0; i < 5; i++) expect((await change({ current_password: `wrong-${i}-password`, new_password: 'another-password-1' })).statusCode).toBe(403);
    // README "Limits besides spec 8": only the re-check is limited.
    for (const [payload, error] of [
      [{}, 'current_password and new_password are required'],
      [{ current_password: a.password }, 'current_password and new_password are required'],
      [{ current_password: a.password, new_password: 'short' }, 'password must be at least 8 characters'],
    ] as const) {
      const res = await change(payload);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: error });
    }
    // the re-check itself is still refused
    const limited = await change({ current_password: a.password, new_password: 'another-password-1' });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('900');
  });

  it('wrong passwords keep refusing re-checks for the whole 15 minutes, not less', async () => {
    const a = await signupAccount(t.app);
    for (let i = 0; i < 5; i++) expect((await addAddress(a, 'wrong-password')).statusCode).toBe(403);
    // A minute short of the window a fresh token changes nothing (the count is the member's, not the session's).
    clock.advance(14 * 60_000 - 1);
    const later = { ...a, accessToken: (await signIn(t.app, a.email)).accessToken };
    expect((await addAddress(later, a.password)).statusCode).toBe(429);
    clock.advance(60_000);
    expect((await addAddress(later, a.password)).statusCode).toBe(429);
    clock.advance(2);
    expect((await addAddress(later, a.password)).statusCode).toBe(201);
  });

  it('ADMIN_MAX_FAILURES wrong admin tokens a minute from one address, then 429 for it (and only it)', async () => {
    const ip = randomIp();
    for (let i = 0; i < ADMIN_MAX_FAILURES; i++) {
      const res = await t.app.inject({ method: 'GET', url: '/admin/merchants', remoteAddress: ip, headers: { authorization: `Bearer guess-${i}` } });
      expect(res.statusCode).toBe(401);
    }
    const limited = await t.app.inject({ method: 'GET', url: '/admin/merchants', remoteAddress: ip, headers: { authorization: 'Bearer guess-x' } });
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({ error: 'rate limit exceeded' });
    expect(limited.headers['retry-after']).toBe('60');
    const elsewhere = await t.app.inject({ method: 'GET', url: '/admin/merchants', remoteAddress: randomIp(), headers: { authorization: 'Bearer test-admin-token' } });
    expect(elsewhere.statusCode).toBe(200);
  });

  it('sign-out with a refresh cookie already exchanged is reuse: 401 and the session ends', async () => {
    const a = await signupAccount(t.app);
    const old = a.refreshCookie!;
    const refreshed = await t.app.inject({ method: 'POST', url: '/merchant/auth/refresh', headers: { cookie: old } });
    expect(refreshed.statusCode).toBe(200);
    const fresh = cookieOf(refreshed)!;
    const out = await t.app.inject({ method: 'POST', url: '/merchant/auth/logout', headers: { cookie: old } });
    expect(out.statusCode).toBe(401);
    expect(out.json()).toEqual({ error: 'invalid or expired token' });
    // The whole session ended: its newest cookie no longer refreshes.
    const after = await t.app.inject({ method: 'POST', url: '/merchant/auth/refresh', headers: { cookie: fresh } });
    expect(after.statusCode).toBe(401);
    // The current cookie of another session still signs out.
    const b = await signupAccount(t.app);
    expect((await t.app.inject({ method: 'POST', url: '/merchant/auth/logout', headers: { cookie: b.refreshCookie! } })).statusCode).toBe(200);
  });

  it('adding members or inviting is limited: 5 a second per address (like sign-up), 20 in 10 seconds per member', async () => {
    const a = await signupAccount(t.app);
    clock.advance(2000);
    const add = (ip: string) => t.app.inject({ method: 'POST', url: '/merchant/users', remoteAddress: ip, headers: tokenHeader(a.accessToken), payload: { email: `someone-${uid()}@example.com`, password: 'correct-horse-9', role: 'viewer' } });
    const ip = randomIp();
    for (let i = 0; i < 5; i++) expect((await add(ip)).statusCode).toBe(201);
    expect((await add(ip)).statusCode).toBe(429);
    for (let i = 0; i < 13; i++) expect((await add(randomIp())).statusCode).toBe(201);
    const invite = (ip: string) => t.app.inject({ method: 'POST', url: '/merchant/invitations', remoteAddress: ip, headers: tokenHeader(a.accessToken), payload: { email: `inv-${uid()}@example.com`, role: 'viewer' } });
    for (let i = 0; i < 2; i++) expect((await invite(randomIp())).statusCode).toBe(201);
    const sixth = await add(randomIp());
    expect(sixth.statusCode).toBe(429);
    expect(sixth.json()).toEqual({ error: 'rate limit exceeded' });
    // the member's budget is over ten seconds (the address's, a second, had room)
    expect(sixth.headers['retry-after']).toBe('10');
    clock.advance(10_001);
    expect((await add(randomIp())).statusCode).toBe(201);
  });

  it('a member\'s email probes stay refused for the whole 10 seconds after the twentieth', async () => {
    const a = await signupAccount(t.app);
    clock.advance(20_000);
    const invite = () => t.app.inject({ method: 'POST', url: '/merchant/invitations', remoteAddress: randomIp(), headers: tokenHeader(a.accessToken), payload: { email: `inv-${uid()}@example.com`, role: 'viewer' } });
    for (let i = 0; i < 20; i++) expect((await invite()).statusCode).toBe(201);
    expect((await invite()).statusCode).toBe(429);
    clock.advance(9_999);
    expect((await invite()).statusCode).toBe(429);
    clock.advance(2);
    expect((await invite()).statusCode).toBe(201);
  });
});
