// The referral program (CONTRACT.md "Referral program", spec 2 "Referral and commission", 3
// "Referral status"): codes and links, clicks, referrals at signup and by hand, voiding,
// commissions on live deposits, the referral balance kept apart, and the operator's adjustments.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { and, eq, inArray } from 'drizzle-orm';
import fc from 'fast-check';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { randomIp, signupAccount, type Account } from '../harness/accounts.ts';
import { expectLedgerHolds, type Member } from '../harness/settlement.ts';
import { admin, codeOf, credit, expectReferralBalancesHold, liveDeposit, member, referredBy } from '../harness/affiliate.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { dec } from '../../src/money/index.ts';
import { events } from '../../src/events/index.ts';
import { auditEntries, merchants } from '../../src/accounts/schema.ts';
import { affiliateEntries, commissions, referrals } from '../../src/affiliate/index.ts';
import { ledgerEntries } from '../../src/settlement/index.ts';

describeEachDb('referral program', (h) => {
  let t: TestApp;
  let clock: ManualClock;
  let aff: Account;
  let owner: Member;
  let finance: Member;
  let developer: Member;
  let viewer: Member;
  let code: string;

  const START = '2026-03-02T10:00:00Z'; // a Monday
  beforeAll(async () => {
    clock = new ManualClock(START);
    t = await startTestApp(h.db(), { clock });
    aff = await signupAccount(t.app);
    owner = await member(t, aff.merchant.id, 'owner');
    finance = await member(t, aff.merchant.id, 'finance');
    developer = await member(t, aff.merchant.id, 'developer');
    viewer = await member(t, aff.merchant.id, 'viewer');
    code = await codeOf(h.db(), aff.merchant.id);
  });
  afterAll(async () => { await t.close(); });
  beforeEach(() => clock.set(START));
  afterEach(async () => {
    await expectReferralBalancesHold(h.db());
    await expectLedgerHolds(h.db());
  });

  const call = async (m: Member, method: 'GET' | 'POST', url: string, payload?: unknown) =>
    t.app.inject({ method, url, headers: { authorization: `Bearer ${await m.token()}` }, remoteAddress: randomIp(), ...(payload === undefined ? {} : { payload: payload as object }) });
  const click = (c: string, ip = randomIp()) => t.app.inject({ method: 'POST', url: `/referrals/${c}/click`, remoteAddress: ip, headers: { origin: 'https://blog.example' } });
  const eventsOf = (merchantId: string, type: string) =>
    h.db().orm.select().from(events).where(and(eq(events.merchantId, merchantId), eq(events.type, type))).orderBy(events.seq);
  const referralOf = async (merchantId: string) => (await h.db().orm.select().from(referrals).where(eq(referrals.merchantId, merchantId)))[0];
  /** A fresh affiliate with an owner, its code, and the owner's calls. */
  const newAffiliate = async () => {
    const a = await signupAccount(t.app);
    return { acct: a, owner: await member(t, a.merchant.id, 'owner'), code: await codeOf(h.db(), a.merchant.id) };
  };

  describe('codes, links and clicks', () => {
    it('gives every merchant a code of 8 characters A-Z0-9 at signup, and shows the program to owners and finance', async () => {
      expect(code).toMatch(/^[A-Z0-9]{8}$/);
      const other = await signupAccount(t.app);
      expect(await codeOf(h.db(), other.merchant.id)).not.toBe(code);
      for (const m of [owner, finance]) {
        const res = await call(m, 'GET', '/merchant/affiliate');
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual({
          code, link: `${t.config.publicUrl}/signup?ref=${code}`, rate_bps: 2500, clicks: 0, referrals: { active: 0, void: 0 },
          balance: { token: 'USDT_TRC20', chain: 'tron', available: '0', pending_payout: '0', paid_out: '0' },
          payouts: { min_payout_usd: '50', payout_days: 3 },
        });
      }
      for (const m of [developer, viewer]) {
        for (const url of ['/merchant/affiliate', '/merchant/affiliate/referrals', '/merchant/affiliate/commissions']) {
          const res = await call(m, 'GET', url);
          expect([res.statusCode, res.json()], url).toEqual([403, { error: 'insufficient permissions' }]);
        }
      }
    });

    it('counts clicks in any case, open to any website, and answers 404 to unknown and suspended codes', async () => {
      const a = await newAffiliate();
      const res = await click(a.code.toLowerCase());
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect((await click(a.code)).statusCode).toBe(204);
      expect((await call(a.owner, 'GET', '/merchant/affiliate')).json().clicks).toBe(2);
      const preflight = await t.app.inject({
        method: 'OPTIONS', url: `/referrals/${a.code}/click`, remoteAddress: randomIp(),
        headers: { origin: 'https://blog.example', 'access-control-request-method': 'POST' },
      });
      expect(preflight.statusCode).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe('*');
      for (const bad of ['ZZZZZZZZ', 'short', 'x'.repeat(90), '%C3%A9%C3%A9%C3%A9%C3%A9%C3%A9%C3%A9%C3%A9%C3%A9']) {
        const r = await click(bad);
        expect([r.statusCode, r.json()], bad).toEqual([404, { error: 'not found' }]);
      }
      await h.db().orm.update(merchants).set({ status: 'suspended' }).where(eq(merchants.id, a.acct.merchant.id));
      expect((await click(a.code)).statusCode).toBe(404);
      expect((await call(owner, 'GET', '/merchant/affiliate')).json().clicks).toBe(0);
    });

    it('admits 5 clicks a second per IP address', async () => {
      const ip = randomIp();
      const codes = await Promise.all([0, 1].map(() => newAffiliate()));
      const got: number[] = [];
      for (let i = 0; i < 6; i++) got.push((await click(codes[i % 2].code, ip)).statusCode);
      expect(got).toEqual([204, 204, 204, 204, 204, 429]);
      expect((await click(codes[0].code, ip)).json()).toEqual({ error: 'rate limit exceeded' });
      expect((await click(codes[0].code)).statusCode).toBe(204);
      clock.advance(1000);
      expect((await click(codes[0].code, ip)).statusCode).toBe(204);
    });
  });

  describe('referrals', () => {
    it('makes a referral of a signup with another active merchant\'s code (any case), told to the affiliate and audited in both logs', async () => {
      const a = await newAffiliate();
      const referred = await referredBy(t, ` ${a.code.toLowerCase()} `);
      const row = await referralOf(referred.merchant.id);
      expect(row).toMatchObject({ affiliateId: a.acct.merchant.id, code: a.code, status: 'active', attachedBy: null });
      const signedUp = new Date(String(referred.merchant.created_at));
      const expected = {
        merchant_id: referred.merchant.id, merchant_name: referred.merchant.name, affiliate_id: a.acct.merchant.id, code: a.code,
        signed_up_at: signedUp.toISOString(), status: 'active', created_at: clock.now().toISOString(),
        earns_until: '2027-03-02T10:00:00.000Z', payments: 0, volume_usd: '0', earned_usd: '0',
      };
      expect(signedUp.toISOString()).toBe('2026-03-02T10:00:00.000Z');
      const list = (await call(a.owner, 'GET', '/merchant/affiliate/referrals')).json();
      expect(list).toEqual({ referrals: [expected], total: 1, limit: 50, offset: 0 });
      expect((await call(a.owner, 'GET', '/merchant/affiliate')).json().referrals).toEqual({ active: 1, void: 0 });
      expect((await eventsOf(a.acct.merchant.id, 'affiliate:referral')).map((e) => e.data)).toEqual([expected]);
      const auditOf = async (merchantId: string) => {
        const audit = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.merchantId, merchantId), eq(auditEntries.action, 'referral.created')));
        expect(audit).toHaveLength(1);
        // the referred merchant's log leaves out the affiliate's figures
        const { payments: _p, volume_usd: _v, earned_usd: _e, ...seen } = expected;
        expect(audit[0]).toMatchObject({ subject: referred.merchant.id });
        expect(audit[0].after).toEqual(merchantId === a.acct.merchant.id ? expected : seen);
        return audit[0].actor;
      };
      // the referred merchant's log names its member; the affiliate's names only the merchant (the
      // affiliate is told its name, never who of its team signed up, nor their email)
      // with the signup request it came from, as every actor (spec 2 "Audit entry"); never in the affiliate's
      expect(await auditOf(referred.merchant.id)).toMatchObject({
        kind: 'merchant', id: referred.user.id, merchant_id: referred.merchant.id, role: 'owner', email: referred.user.email,
        ip: expect.any(String), request_id: expect.any(String),
      });
      expect(await auditOf(a.acct.merchant.id)).toEqual({ kind: 'merchant', merchant_id: referred.merchant.id });
    });

    it('ignores an unknown, malformed, suspended or missing code: the signup succeeds with no referral', async () => {
      const suspended = await newAffiliate();
      await h.db().orm.update(merchants).set({ status: 'suspended' }).where(eq(merchants.id, suspended.acct.merchant.id));
      for (const given of ['ZZZZ9999', 'abc', suspended.code, 12345678, null, '', `${code}X`]) {
        const m = await signupAccount(t.app, { referral_code: given });
        expect(await referralOf(m.merchant.id), String(given)).toBeUndefined();
      }
    });

    it('lists referrals newest first, filtered by status, with the list limits', async () => {
      const a = await newAffiliate();
      const first = await referredBy(t, a.code);
      clock.advance(1000);
      const second = await referredBy(t, a.code);
      await admin(t, 'POST', `/admin/referrals/${first.merchant.id}/void`, { reason: 'test' });
      const ids = async (q: string) => (await call(a.owner, 'GET', `/merchant/affiliate/referrals${q}`)).json();
      expect((await ids('')).referrals.map((r: { merchant_id: string }) => r.merchant_id)).toEqual([second.merchant.id, first.merchant.id]);
      expect((await ids('?status=active')).referrals.map((r: { merchant_id: string }) => r.merchant_id)).toEqual([second.merchant.id]);
      expect(await ids('?status=void')).toMatchObject({ total: 1, referrals: [{ merchant_id: first.merchant.id, status: 'void', void_reason: 'test' }] });
      expect(await ids('?limit=1&offset=1')).toMatchObject({ total: 2, limit: 1, offset: 1, referrals: [{ merchant_id: first.merchant.id }] });
      expect(await ids('?limit=999&offset=-3')).toMatchObject({ limit: 50, offset: 0 });
      const bad = await call(a.owner, 'GET', '/merchant/affiliate/referrals?status=gone');
      expect([bad.statusCode, bad.json()]).toEqual([400, { error: 'status must be "active" or "void"' }]);
    });

    it('lets the operator attach a referral by hand (attached_by admin) and refuses what cannot be one', async () => {
      const a = await newAffiliate();
      const m = await signupAccount(t.app);
      // attached 40 days after the signup: it still earns from the signup, not from the attach
      clock.advance(40 * 86_400_000);
      const res = await admin(t, 'POST', '/admin/referrals', { merchant_id: m.merchant.id, code: a.code.toLowerCase() });
      expect(res.statusCode).toBe(201);
      expect(res.json().referral).toMatchObject({ merchant_id: m.merchant.id, affiliate_id: a.acct.merchant.id, code: a.code, status: 'active', attached_by: 'admin' });
      expect(res.json().referral).toMatchObject({
        signed_up_at: '2026-03-02T10:00:00.000Z', earns_until: '2027-03-02T10:00:00.000Z', created_at: clock.now().toISOString(),
      });
      const audit = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.merchantId, m.merchant.id), eq(auditEntries.action, 'referral.created')));
      expect(audit[0].actor).toMatchObject({ kind: 'admin' });
      const suspended = await newAffiliate();
      await h.db().orm.update(merchants).set({ status: 'suspended' }).where(eq(merchants.id, suspended.acct.merchant.id));
      const other = await signupAccount(t.app);
      const own = await newAffiliate();
      for (const [body, status, error] of [
        [{ merchant_id: m.merchant.id, code: a.code }, 409, 'this merchant has a referral already'],
        [{ merchant_id: 'mer_nope', code: a.code }, 400, 'unknown merchant_id'],
        [{ code: a.code }, 400, 'unknown merchant_id'],
        [{ merchant_id: 'mer-x', code: a.code }, 400, 'unknown merchant_id'],
        [{ merchant_id: other.merchant.id, code: 'ZZZZ9999' }, 400, 'unknown referral code'],
        [{ merchant_id: other.merchant.id, code: 42 }, 400, 'unknown referral code'],
        [{ merchant_id: other.merchant.id, code: suspended.code }, 400, 'unknown referral code'],
        [{ merchant_id: own.acct.merchant.id, code: own.code }, 400, 'a merchant cannot be its own referral'],
      ] as const) {
        const r = await admin(t, 'POST', '/admin/referrals', body);
        expect([r.statusCode, r.json()], JSON.stringify(body)).toEqual([status, { error }]);
      }
      const noToken = await t.app.inject({ method: 'POST', url: '/admin/referrals', payload: {}, remoteAddress: randomIp() });
      expect([noToken.statusCode, noToken.json()]).toEqual([401, { error: 'invalid admin token' }]);
    });

    it('voids a referral for the operator (it earns nothing more), audited and told to the affiliate', async () => {
      const a = await newAffiliate();
      const m = await referredBy(t, a.code);
      const res = await admin(t, 'POST', `/admin/referrals/${m.merchant.id}/void`, { reason: 'self-referral ring' });
      expect(res.statusCode).toBe(200);
      expect(res.json().referral).toMatchObject({ status: 'void', void_reason: 'self-referral ring', voided_at: clock.now().toISOString() });
      expect((await eventsOf(a.acct.merchant.id, 'affiliate:referral')).at(-1)!.data).toMatchObject({ status: 'void' });
      for (const merchantId of [a.acct.merchant.id, m.merchant.id]) {
        const [entry] = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.merchantId, merchantId), eq(auditEntries.action, 'referral.voided')));
        expect(entry).toMatchObject({ subject: m.merchant.id, note: 'self-referral ring' });
        expect(entry.actor).toMatchObject({ kind: 'admin' });
        expect(entry.before).toMatchObject({ status: 'active' });
      }
      await liveDeposit(t, m.merchant.id, '100');
      expect(await h.db().orm.select().from(commissions).where(eq(commissions.merchantId, m.merchant.id))).toEqual([]);
      expect((await call(a.owner, 'GET', '/merchant/affiliate')).json().referrals).toEqual({ active: 0, void: 1 });
      for (const [url, body, status, error] of [
        [`/admin/referrals/${m.merchant.id}/void`, { reason: 'again' }, 409, 'this referral is void already'],
        [`/admin/referrals/${aff.merchant.id}/void`, { reason: 'x' }, 404, 'not found'],
        ['/admin/referrals/mer_nope/void', { reason: 'x' }, 404, 'not found'],
        [`/admin/referrals/${m.merchant.id}/void`, {}, 400, 'reason is required'],
        [`/admin/referrals/${m.merchant.id}/void`, { reason: '  ' }, 400, 'reason is required'],
        [`/admin/referrals/${m.merchant.id}/void`, { reason: 'a\u0000b' }, 400, 'reason must not contain NUL characters'],
      ] as const) {
        const r = await admin(t, 'POST', url, body);
        expect([r.statusCode, r.json()], `${url} ${JSON.stringify(body)}`).toEqual([status, { error }]);
      }
    });
    it('never shows the referred merchant the affiliate\'s earnings: its audit entries carry the referral without them', async () => {
      const a = await newAffiliate();
      const m = await referredBy(t, a.code);
      await liveDeposit(t, m.merchant.id, '100');
      clock.advance(60_000);
      expect((await admin(t, 'POST', `/admin/referrals/${m.merchant.id}/void`, { reason: 'ring' })).statusCode).toBe(200);
      const earnings = ['payments', 'volume_usd', 'earned_usd', 'last_earned_at'];
      const entriesOf = (merchantId: string) => h.db().orm.select().from(auditEntries)
        .where(and(eq(auditEntries.merchantId, merchantId), inArray(auditEntries.action, ['referral.created', 'referral.voided'])));
      // the affiliate's own log keeps its figures
      const [voidedForAffiliate] = (await entriesOf(a.acct.merchant.id)).filter((e) => e.action === 'referral.voided');
      expect(voidedForAffiliate.before).toMatchObject({ payments: 1, volume_usd: '100', earned_usd: '0.25' });
      // the referred merchant's: the referral (its status, code, dates), never what the affiliate earned from it
      const own = await entriesOf(m.merchant.id);
      expect(own.map((e) => e.action).sort()).toEqual(['referral.created', 'referral.voided']);
      for (const e of own) {
        for (const side of [e.before, e.after]) {
          if (side === null) continue;
          for (const k of earnings) expect(side, `${e.action} ${k}`).not.toHaveProperty(k);
          expect(side).toMatchObject({ merchant_id: m.merchant.id, code: a.code });
        }
      }
      // nor does its audit log read through the dashboard
      const listed = await call(await member(t, m.merchant.id, 'owner'), 'GET', '/merchant/audit');
      expect(listed.statusCode).toBe(200);
      expect(listed.body).toContain('referral.voided');
      for (const k of earnings) expect(listed.body).not.toContain(`"${k}"`);
    });
  });

  describe('commissions', () => {
    it('credits one commission per live deposit: fee × 2500 / 10000, told to the affiliate, counted on the referral', async () => {
      const a = await newAffiliate();
      const m = await referredBy(t, a.code);
      const { payment } = await liveDeposit(t, m.merchant.id, '100', { tx: 'tx_first' });
      const list = (await call(a.owner, 'GET', '/merchant/affiliate/commissions')).json();
      const expected = {
        id: `${payment.id}:tx_first`, affiliate_id: a.acct.merchant.id, merchant_id: m.merchant.id, merchant_name: m.merchant.name,
        payment_id: payment.id, deposit_usd: '100', fee_usd: '1', rate_bps: 2500, token: 'USDT_TRC20', amount: '0.25', created_at: clock.now().toISOString(),
      };
      expect(list).toEqual({ commissions: [expected], total: 1, limit: 50, offset: 0 });
      expect((await call(a.owner, 'GET', '/merchant/affiliate')).json().balance).toEqual({
        token: 'USDT_TRC20', chain: 'tron', available: '0.25', pending_payout: '0', paid_out: '0',
      });
      expect((await eventsOf(a.acct.merchant.id, 'affiliate:commission')).map((e) => e.data)).toEqual([expected]);
      expect((await eventsOf(a.acct.merchant.id, 'affiliate:balance')).at(-1)!.data).toMatchObject({ available: '0.25' });
      // a late deposit of the same payment: its own commission, the same payment counted once
      clock.advance(60_000);
      await t.services.settlement.settle(h.db(), {
        payment,
        deposits: [
          { tx_id: 'tx_first', token: 'USDT_TRC20', amount: 100_000_000n, usd_value: '100', final_at: clock.now() },
          { tx_id: 'tx_late', token: 'USDT_TRC20', amount: 10_000_000n, usd_value: '10', final_at: clock.now() },
        ],
      });
      const referral = (await call(a.owner, 'GET', '/merchant/affiliate/referrals')).json().referrals[0];
      expect(referral).toMatchObject({ payments: 1, volume_usd: '110', earned_usd: '0.3', last_earned_at: clock.now().toISOString() });
      expect((await call(a.owner, 'GET', '/merchant/affiliate/commissions')).json().commissions.map((c: { id: string; amount: string }) => [c.id, c.amount]))
        .toEqual([[`${payment.id}:tx_late`, '0.05'], [`${payment.id}:tx_first`, '0.25']]);
    });

    it('a direct Tron settlement: nothing while it waits for its burnt fee or has failed; its return (the quote stands) credits it once', async () => {
      const a = await newAffiliate();
      const m = await referredBy(t, a.code);
      const mOwner = await member(t, m.merchant.id, 'owner');
      await t.services.settlement.addresses.add({ merchantId: m.merchant.id, userId: mOwner.userId, actor: { kind: 'merchant', id: mOwner.userId } }, true,
        { token: 'USDT_TRC20', address: 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH', password: mOwner.password });
      let n = 0;
      t.services.settlement.useTransfers({ send: async () => `intent_${++n}`, retry: async () => 1 });
      try {
        const { payment, settlement: s } = await liveDeposit(t, m.merchant.id, '20', { settlement: 'direct', deposit_address: 'TDeposit', tx: 'tx_direct' });
        expect(s).toMatchObject({ mode: 'direct', status: 'pending' });
        const ofPayment = () => h.db().orm.select().from(commissions).where(eq(commissions.paymentId, payment.id));
        expect(await ofPayment()).toEqual([]);
        await h.db().transaction((tx) => t.services.settlement.failSettlement(tx, s.id, 'node refused the transfer'));
        expect(await ofPayment()).toEqual([]);
        clock.advance(60_000);
        const res = await admin(t, 'POST', `/admin/settlements/${s.id}/return`, { note: 'merchant wallet refuses it' });
        expect(res.statusCode, res.body).toBe(200);
        expect((await ofPayment()).map((c) => [c.id, c.feeUsd.toString(), c.amount, c.createdAt.toISOString()]))
          .toEqual([[`${payment.id}:tx_direct`, '0.2', 50_000n, clock.now().toISOString()]]);
      } finally {
        t.services.settlement.useTransfers(null);
      }
    });

    it('credits a fee told twice once (idempotent per <payment id>:<transaction id>)', async () => {
      const a = await newAffiliate();
      const m = await referredBy(t, a.code);
      const fee = { merchantId: m.merchant.id, paymentId: 'pay_x', reference: 'pay_x:tx_1', depositUsd: dec('40'), feeUsd: dec('0.4'), at: clock.now() };
      await h.db().transaction((tx) => t.services.affiliate.creditCommission(tx, fee));
      await h.db().transaction((tx) => t.services.affiliate.creditCommission(tx, fee));
      await Promise.all([0, 1].map(() => h.db().transaction((tx) => t.services.affiliate.creditCommission(tx, fee))));
      expect(await h.db().orm.select().from(commissions).where(eq(commissions.merchantId, m.merchant.id))).toHaveLength(1);
      expect((await call(a.owner, 'GET', '/merchant/affiliate')).json().balance.available).toBe('0.1');
      expect(await referralOf(m.merchant.id)).toMatchObject({ payments: 1, earned: 100_000n });
    });

    it('records a commission that rounds down to 0 without touching the referral balance', async () => {
      const a = await newAffiliate();
      const m = await referredBy(t, a.code);
      // 0.000003 × 2500 / 10000 = 0.00000075: nothing to credit, no statement entry, no balance event
      const fee = { merchantId: m.merchant.id, paymentId: 'pay_tiny', reference: 'pay_tiny:tx_1', depositUsd: dec('0.0003'), feeUsd: dec('0.000003'), at: clock.now() };
      await h.db().transaction((tx) => t.services.affiliate.creditCommission(tx, fee));
      expect(await h.db().orm.select().from(commissions).where(eq(commissions.merchantId, m.merchant.id))).toMatchObject([{ amount: 0n }]);
      expect(await h.db().orm.select().from(affiliateEntries).where(eq(affiliateEntries.affiliateId, a.acct.merchant.id))).toEqual([]);
      expect(await eventsOf(a.acct.merchant.id, 'affiliate:balance')).toEqual([]);
      expect((await call(a.owner, 'GET', '/merchant/affiliate')).json().balance.available).toBe('0');
    });

    it('earns nothing on test payments, on deposits of merchants nobody referred, or after earns_until', async () => {
      const a = await newAffiliate();
      const m = await referredBy(t, a.code);
      await liveDeposit(t, m.merchant.id, '100', { livemode: false });
      const lone = await signupAccount(t.app);
      await liveDeposit(t, lone.merchant.id, '100');
      const row = await referralOf(m.merchant.id);
      clock.set(row.earnsUntil!);
      await liveDeposit(t, m.merchant.id, '100');
      expect(await h.db().orm.select().from(commissions).where(inArray(commissions.merchantId, [m.merchant.id, lone.merchant.id]))).toEqual([]);
      clock.set(new Date(row.earnsUntil!.getTime() - 1));
      await liveDeposit(t, m.merchant.id, '100');
      expect(await h.db().orm.select().from(commissions).where(eq(commissions.merchantId, m.merchant.id))).toHaveLength(1);
    });

    it('keeps the referral balance out of the merchant\'s balances, balance:update and the ledger', async () => {
      const a = await newAffiliate();
      const m = await referredBy(t, a.code);
      await liveDeposit(t, m.merchant.id, '500');
      await credit(t, a.acct.merchant.id, '7');
      expect((await call(a.owner, 'GET', '/merchant/affiliate')).json().balance.available).toBe('8.25');
      for (const mode of ['', '?mode=test']) expect((await call(a.owner, 'GET', `/merchant/balances${mode}`)).json()).toEqual({ balances: [] });
      expect((await call(a.owner, 'GET', '/merchant/ledger')).json()).toMatchObject({ entries: [], total: 0 });
      expect(await h.db().orm.select().from(ledgerEntries).where(eq(ledgerEntries.merchantId, a.acct.merchant.id))).toEqual([]);
      expect(await eventsOf(a.acct.merchant.id, 'balance:update')).toEqual([]);
    });

    it('earns for as long as the merchant uses the service with REFERRAL_MONTHS=0, at REFERRAL_RATE_BPS', async () => {
      const t2 = await startTestApp(h.db(), { clock, env: { REFERRAL_MONTHS: '0', REFERRAL_RATE_BPS: '1000' } });
      try {
        const a = await signupAccount(t2.app);
        const m = await signupAccount(t2.app, { referral_code: await codeOf(h.db(), a.merchant.id) });
        expect((await referralOf(m.merchant.id)).earnsUntil).toBeNull();
        clock.advance(10 * 365 * 86_400_000);
        await liveDeposit(t2, m.merchant.id, '1000');
        const [c] = await h.db().orm.select().from(commissions).where(eq(commissions.merchantId, m.merchant.id));
        expect(c).toMatchObject({ rateBps: 1000, amount: 1_000_000n });
        const owner2 = await member(t2, a.merchant.id, 'owner');
        const overview = await t2.app.inject({ method: 'GET', url: '/merchant/affiliate', headers: { authorization: `Bearer ${await owner2.token()}` }, remoteAddress: randomIp() });
        expect(overview.json()).toMatchObject({ rate_bps: 1000, balance: { available: '1' } });
      } finally {
        await t2.close();
      }
    });
  });

  describe('operator adjustments of the referral balance', () => {
    it('credits and debits, never below zero, with an adjustment entry audited as admin', async () => {
      const a = await newAffiliate();
      const res = await admin(t, 'POST', '/admin/affiliate/adjustments', { merchant_id: a.acct.merchant.id, amount: '12.5', note: 'campaign bonus' });
      expect(res.statusCode).toBe(201);
      expect(res.json().entry).toMatchObject({
        merchant_id: a.acct.merchant.id, type: 'adjustment', token: 'USDT_TRC20', chain: 'tron', amount: '12.5', note: 'campaign bonus',
      });
      expect((await admin(t, 'POST', '/admin/affiliate/adjustments', { merchant_id: a.acct.merchant.id, amount: -2.5, note: 'fix' })).json().entry.amount).toBe('-2.5');
      expect((await call(a.owner, 'GET', '/merchant/affiliate')).json().balance.available).toBe('10');
      const audit = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.merchantId, a.acct.merchant.id), eq(auditEntries.action, 'referral_balance.adjusted')));
      expect(audit.map((e) => e.note).sort()).toEqual(['campaign bonus', 'fix']);
      expect(audit.every((e) => (e.actor as { kind: string }).kind === 'admin')).toBe(true);
      const amountError = 'amount must be a non-zero signed decimal of USDT_TRC20 with at most 6 decimals (e.g. "-1.5")';
      for (const [body, error] of [
        [{ amount: '-10.000001', note: 'x' }, 'the adjustment would take the referral balance below zero'],
        [{ amount: '0', note: 'x' }, amountError],
        [{ amount: '1.0000001', note: 'x' }, amountError],
        [{ amount: 'ten', note: 'x' }, amountError],
        [{ amount: '1', note: '' }, 'note is required'],
        [{ amount: '1' }, 'note is required'],
        [{ amount: '1', note: 'a\u0000' }, 'note must not contain NUL characters'],
        [{ amount: '1', note: 'n'.repeat(501) }, 'note must be at most 500 characters'],
        [{ merchant_id: 'mer_nope', amount: '1', note: 'x' }, 'unknown merchant_id'],
      ] as const) {
        const r = await admin(t, 'POST', '/admin/affiliate/adjustments', { merchant_id: a.acct.merchant.id, ...body });
        expect([r.statusCode, r.json()], JSON.stringify(body)).toEqual([400, { error }]);
      }
      expect((await call(a.owner, 'GET', '/merchant/affiliate')).json().balance.available).toBe('10');
    });

    it('queues concurrent adjustments of one referral balance: none is lost, none takes it below zero', async () => {
      const a = await newAffiliate();
      await credit(t, a.acct.merchant.id, '5');
      const adjust = (amount: string) => admin(t, 'POST', '/admin/affiliate/adjustments', { merchant_id: a.acct.merchant.id, amount, note: 'race' });
      const credits = await Promise.all(Array.from({ length: 6 }, () => adjust('1')));
      expect(credits.map((r) => r.statusCode)).toEqual([201, 201, 201, 201, 201, 201]);
      expect((await call(a.owner, 'GET', '/merchant/affiliate')).json().balance.available).toBe('11');
      // 11 available: of four debits of 3 at once, three pass and one is refused
      const debits = await Promise.all(Array.from({ length: 4 }, () => adjust('-3')));
      expect(debits.map((r) => r.statusCode).sort()).toEqual([201, 201, 201, 400]);
      expect((await call(a.owner, 'GET', '/merchant/affiliate')).json().balance.available).toBe('2');
    });

    it('debits the referral balance to exactly zero, and refuses one unit more', async () => {
      const a = await newAffiliate();
      await credit(t, a.acct.merchant.id, '3.000001');
      const below = await admin(t, 'POST', '/admin/affiliate/adjustments', { merchant_id: a.acct.merchant.id, amount: '-3.000002', note: 'clawback' });
      expect([below.statusCode, below.json()]).toEqual([400, { error: 'the adjustment would take the referral balance below zero' }]);
      const res = await admin(t, 'POST', '/admin/affiliate/adjustments', { merchant_id: a.acct.merchant.id, amount: '-3.000001', note: 'clawback' });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().entry).toMatchObject({ type: 'adjustment', amount: '-3.000001' });
      expect((await call(a.owner, 'GET', '/merchant/affiliate')).json().balance.available).toBe('0');
    });
  });

  it('never answers 5xx to any JSON body on the operator routes of the program', async () => {
    const m = await signupAccount(t.app);
    const urls = ['/admin/referrals', `/admin/referrals/${m.merchant.id}/void`, '/admin/affiliate/adjustments'];
    await fc.assert(fc.asyncProperty(fc.constantFrom(...urls), fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.dictionary(
      fc.constantFrom('merchant_id', 'code', 'reason', 'amount', 'note'), fc.oneof(fc.string(), fc.integer(), fc.constant(m.merchant.id), fc.jsonValue({ maxDepth: 2 })),
    )), async (url, body) => {
      const res = await admin(t, 'POST', url, body);
      expect(res.statusCode, `${url} ${JSON.stringify(body)} ${res.body}`).toBeLessThan(500);
      expect(typeof res.json().error === 'string' || res.statusCode < 300).toBe(true);
    }), { numRuns: 60 });
  });
});
