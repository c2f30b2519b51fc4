// Settings, live mode and the audit log (spec 4.4 Settings, Audit; CONTRACT.md "Access").
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { and, asc, eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { addMember, keyHeader, randomIp, signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { apiRoute } from '../../src/accounts/index.ts';
import { auditEntries, merchants } from '../../src/accounts/schema.ts';
import { recordAudit } from '../../src/audit/index.ts';
import { events } from '../../src/events/index.ts';
import { TOKENS } from '../../src/tokens/index.ts';

describeEachDb('accounts settings, live mode and audit', (h) => {
  let t: TestApp;
  let acct: Account;
  const clock = new ManualClock('2026-03-10T12:00:00Z');
  beforeAll(async () => {
    t = await startTestApp(h.db(), {
      clock,
      extraRoutes: (app, services) => {
        apiRoute(app, services.accounts.authn, { method: 'GET', url: '/v1/__live', handler: async (_q, _r, auth) => ({ ok: auth.livemode }) });
      },
    });
    acct = await signupAccount(t.app);
  });
  afterAll(async () => { await t.close(); });

  // every request a millisecond later, so newest-first order is well defined
  const inject = (opts: InjectOptions) => { clock.advance(1); return t.app.inject({ remoteAddress: randomIp(), ...opts }); };
  const chosen = (list: string[]) => TOKENS.filter((x) => list.includes(x));
  const patch = (payload: unknown, token = acct.accessToken) => inject({ method: 'PATCH', url: '/merchant/settings', headers: tokenHeader(token), payload: payload as object });
  const audit = (query = '', token = acct.accessToken) => inject({ method: 'GET', url: `/merchant/audit${query}`, headers: tokenHeader(token) });

  it('changes every setting, answers {merchant}, audits settings.updated with before/after and emits merchant:update', async () => {
    const res = await patch({
      underpaid_tolerance_bps: 2000, accept_other_assets: true, settlement: 'custodial', payout_schedule: 'weekly',
      fees_paid_by_customer: false, convert_into: 'USDT_TRC20', hide_below_minimum: true, enabled_tokens: ['BTC', 'ETH', 'BTC'],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().merchant).toMatchObject({
      underpaid_tolerance_bps: 2000, accept_other_assets: true, settlement: 'custodial', payout_schedule: 'weekly',
      fees_paid_by_customer: false, convert_into: 'USDT_TRC20', hide_below_minimum: true, enabled_tokens: chosen(['BTC', 'ETH']),
    });
    const [entry] = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.merchantId, acct.merchant.id), eq(auditEntries.action, 'settings.updated')));
    expect(entry.before).toMatchObject({ underpaid_tolerance_bps: 50, settlement: 'direct', enabled_tokens: [...TOKENS] });
    expect(entry.after).toMatchObject({ underpaid_tolerance_bps: 2000, settlement: 'custodial', enabled_tokens: chosen(['BTC', 'ETH']) });
    expect(entry.before).not.toHaveProperty('fee_bps');
    const ev = await h.db().orm.select().from(events).where(and(eq(events.type, 'merchant:update'), eq(events.merchantId, acct.merchant.id))).orderBy(asc(events.seq));
    // the dashboard is told the merchant as it now is
    expect(ev.at(-1)!.data).toMatchObject({ underpaid_tolerance_bps: 2000, settlement: 'custodial', enabled_tokens: chosen(['BTC', 'ETH']) });
  });

  it('stores the chosen list even when it names every token; null restores "every token, also later ones"', async () => {
    await patch({ enabled_tokens: [...TOKENS] });
    const [m1] = await h.db().orm.select().from(merchants).where(eq(merchants.id, acct.merchant.id));
    expect(m1.enabledTokens).toEqual([...TOKENS]);
    await patch({ enabled_tokens: null });
    const [m2] = await h.db().orm.select().from(merchants).where(eq(merchants.id, acct.merchant.id));
    expect(m2.enabledTokens).toBeNull();
  });

  it.each([
    [{}, 'nothing to update'],
    [{ unknown_field: 1 }, 'nothing to update'],
    [{ underpaid_tolerance_bps: 2001 }, 'underpaid_tolerance_bps must be between 0 and 2000'],
    [{ underpaid_tolerance_bps: -1 }, 'underpaid_tolerance_bps must be between 0 and 2000'],
    [{ underpaid_tolerance_bps: 1.5 }, 'underpaid_tolerance_bps must be between 0 and 2000'],
    [{ underpaid_tolerance_bps: '50' }, 'underpaid_tolerance_bps must be between 0 and 2000'],
    [{ settlement: 'instant' }, 'settlement must be "custodial", "direct" or "scheduled"'],
    [{ payout_schedule: 'monthly' }, 'payout_schedule must be "instant", "daily" or "weekly"'],
    [{ convert_into: 'DOGECOIN' }, 'convert_into must be "cheapest", "order" or a supported token'],
    [{ accept_other_assets: 'yes' }, 'accept_other_assets must be true or false'],
    [{ fees_paid_by_customer: 1 }, 'fees_paid_by_customer must be true or false'],
    [{ hide_below_minimum: null }, 'hide_below_minimum must be true or false'],
    [{ enabled_tokens: ['BTC', 'SHIB'] }, 'unsupported token: SHIB'],
    [{ enabled_tokens: [] }, 'enabled_tokens must enable at least one token'],
    [{ enabled_tokens: 'BTC' }, 'enabled_tokens must be a list of tokens, or null for every token'],
  ])('refuses %j with 400 %s and changes nothing', async (payload, message) => {
    const before = (await inject({ method: 'GET', url: '/merchant/me', headers: tokenHeader(acct.accessToken) })).json().merchant;
    const res = await patch(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: message });
    const after = (await inject({ method: 'GET', url: '/merchant/me', headers: tokenHeader(acct.accessToken) })).json().merchant;
    expect(after).toEqual(before);
  });

  it('keeps settings, live mode and the audit log to owners', async () => {
    const dev = await addMember(t.app, acct.accessToken, 'developer');
    for (const res of [
      await patch({ hide_below_minimum: true }, dev.accessToken),
      await inject({ method: 'POST', url: '/merchant/live', headers: tokenHeader(dev.accessToken), payload: { enabled: true } }),
      await audit('', dev.accessToken),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'insufficient permissions' });
    }
  });

  it('turns live mode on and off: live keys work at once, then stop at once; audits live_mode.updated', async () => {
    const live = async (enabled: unknown) => inject({ method: 'POST', url: '/merchant/live', headers: tokenHeader(acct.accessToken), payload: { enabled } });
    expect((await inject({ method: 'GET', url: '/v1/__live', headers: keyHeader(acct.liveKey) })).statusCode).toBe(403);
    const on = await live(true);
    expect(on.statusCode).toBe(200);
    expect(on.json().merchant.live_enabled).toBe(true);
    expect((await inject({ method: 'GET', url: '/v1/__live', headers: keyHeader(acct.liveKey) })).json()).toEqual({ ok: true });
    expect((await live(false)).json().merchant.live_enabled).toBe(false);
    expect((await inject({ method: 'GET', url: '/v1/__live', headers: keyHeader(acct.liveKey) })).statusCode).toBe(403);
    const entries = (await audit('?action=live_mode.updated')).json().entries;
    expect(entries.map((e: { after: { live_enabled: boolean } }) => e.after.live_enabled)).toEqual([false, true]);
  });

  it.each([[{}], [{ enabled: 'true' }], [{ enabled: 1 }], [{ enabled: null }]])('answers 400 `enabled (true or false) is required` to %j', async (payload) => {
    const res = await inject({ method: 'POST', url: '/merchant/live', headers: tokenHeader(acct.accessToken), payload });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'enabled (true or false) is required' });
  });

  it('lists the audit log newest first with {entries, total, limit, offset} and every filter', async () => {
    const a = await signupAccount(t.app);
    const db = h.db();
    const at = (s: string) => new Date(s);
    const actor = { kind: 'merchant' as const, id: 'usr_x', email: 'x@example.com', role: 'owner' };
    await db.transaction(async (tx) => {
      await recordAudit(tx, { merchantId: a.merchant.id, action: 'webhook.url_set', actor, subject: `${a.merchant.id}:test`, at: at('2026-03-01T00:00:00Z') });
      await recordAudit(tx, { merchantId: a.merchant.id, action: 'webhook.secret_rolled', actor: { kind: 'system' }, subject: `${a.merchant.id}:live`, at: at('2026-03-02T23:59:59.999Z') });
      await recordAudit(tx, { merchantId: a.merchant.id, action: 'payment.created', actor: { kind: 'api_key', id: 'key_1' }, paymentId: 'pay_1', at: at('2026-03-03T00:00:00Z') });
      await recordAudit(tx, { merchantId: a.merchant.id, action: 'webhookx.thing', actor, at: at('2026-03-04T10:00:00Z') });
    });
    const get = async (q: string) => {
      const res = await audit(q, a.accessToken);
      expect(res.statusCode).toBe(200);
      return res.json() as { entries: { action: string; at: string }[]; total: number; limit: number; offset: number };
    };
    const all = await get('');
    expect(all.total).toBe(4);
    expect(all.limit).toBe(100);
    expect(all.offset).toBe(0);
    expect(all.entries.map((e) => e.action)).toEqual(['webhookx.thing', 'payment.created', 'webhook.secret_rolled', 'webhook.url_set']);
    expect((await get('?action=webhook.')).entries.map((e) => e.action)).toEqual(['webhook.secret_rolled', 'webhook.url_set']);
    expect((await get('?action=webhook')).total).toBe(0);
    expect((await get('?action=webhook.url_set')).total).toBe(1);
    expect((await get(`?subject=${a.merchant.id}:live`)).entries.map((e) => e.action)).toEqual(['webhook.secret_rolled']);
    expect((await get('?payment_id=pay_1')).entries.map((e) => e.action)).toEqual(['payment.created']);
    expect((await get('?actor_id=usr_x')).total).toBe(2);
    expect((await get('?actor_id=key_1')).total).toBe(1);
    expect((await get('?from=2026-03-02&to=2026-03-03')).entries.map((e) => e.action)).toEqual(['payment.created', 'webhook.secret_rolled']);
    expect((await get('?to=2026-03-01')).entries.map((e) => e.action)).toEqual(['webhook.url_set']);
    const paged = await get('?limit=2&offset=1');
    expect(paged).toMatchObject({ total: 4, limit: 2, offset: 1 });
    expect(paged.entries.map((e) => e.action)).toEqual(['payment.created', 'webhook.secret_rolled']);
    expect(await get('?limit=501&offset=-3')).toMatchObject({ limit: 100, offset: 0 });
    expect((await get('?limit=500')).limit).toBe(500);
    // another account's entries never show
    expect((await get('?action=settings.updated')).total).toBe(0);
  });

  it.each([
    ['?from=2026-3-1', 'from must be a date: 2006-01-02'],
    ['?from=yesterday', 'from must be a date: 2006-01-02'],
    ['?from=2026-02-30', 'from must be a date: 2006-01-02'],
    ['?to=2026-13-01', 'to must be a date: 2006-01-02'],
    ['?to=2026-03-01T00:00:00Z', 'to must be a date: 2006-01-02'],
  ])('answers 400 to %s with %s', async (q, message) => {
    const res = await audit(q);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: message });
  });

  it('records the acting member with ip, user agent, request id, email and role', async () => {
    const res = await inject({ method: 'PATCH', url: '/merchant/settings', remoteAddress: '10.9.8.7', headers: { ...tokenHeader(acct.accessToken), 'user-agent': 'probe/1.0' }, payload: { hide_below_minimum: false } });
    expect(res.statusCode).toBe(200);
    const [entry] = (await audit('?action=settings.updated&limit=1')).json().entries;
    expect(entry.actor).toEqual({
      kind: 'merchant', id: acct.user.id, merchant_id: acct.merchant.id, email: acct.email, role: 'owner',
      ip: '10.9.8.7', user_agent: 'probe/1.0', request_id: res.headers['x-request-id'],
    });
    expect(entry.subject).toBe(acct.merchant.id);
    expect(entry.merchant_id).toBe(acct.merchant.id);
  });
});
