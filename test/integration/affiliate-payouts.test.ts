// Referral payouts (spec 3 "Referral payout status", 4.4 "Referral payouts", 6.3, 7 "Referral
// payout request (checked in this order)", 8): every message, the order of the checks, the states
// and the operator's moves, due dates in business days, the list order, the rate limit, and what
// the team and the dashboard are told.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import fc from 'fast-check';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { randomIp, signupAccount } from '../harness/accounts.ts';
import { ADDR, type Member } from '../harness/settlement.ts';
import { admin, credit, expectReferralBalancesHold, member } from '../harness/affiliate.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { events } from '../../src/events/index.ts';
import { auditEntries } from '../../src/accounts/schema.ts';
import { notifications } from '../../src/notifications/index.ts';
import { affiliateEntries } from '../../src/affiliate/index.ts';
import { createPayment } from '../harness/payments.ts';

const FRIDAY = '2026-03-06T15:30:00Z';
const ERR = {
  role: 'insufficient permissions',
  rate: 'rate limit exceeded',
  body: 'invalid request body',
  password: 'password is incorrect',
  open: 'a payout is open already: cancel it, or wait for it to be paid',
  both: 'give address_id or address, not both',
  tron: 'address is not a valid Tron address',
  coin: 'referral payouts are paid in USDT on Tron: choose a USDT (Tron) payout address',
  unknown: 'unknown payout address',
  target: 'add a USDT (Tron) payout address, or give the address to pay',
  positive: 'amount must be more than 0',
  decimals: 'amount has more than 6 decimals',
  min: 'the minimum payout is 50.00 USDT_TRC20',
  fee: 'amount must be more than the network fee of 1 USDT_TRC20',
  holds: (n: string) => `your referral balance holds ${n} USDT_TRC20`,
  failed: 'could not request the payout',
  state: 'payout is not in a state that allows this',
};

interface Aff { id: string; owner: Member; finance: Member; developer: Member; viewer: Member; trc: string }

describeEachDb('referral payouts', (h) => {
  let t: TestApp;
  let clock: ManualClock;
  beforeAll(async () => {
    clock = new ManualClock(FRIDAY);
    t = await startTestApp(h.db(), { clock });
  });
  afterAll(async () => { await t.close(); });
  beforeEach(() => clock.set(FRIDAY));
  afterEach(async () => { await expectReferralBalancesHold(h.db()); });

  const send = async (m: Member, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown, app = t) =>
    app.app.inject({
      method, url, remoteAddress: randomIp(), headers: { authorization: `Bearer ${await m.token()}`, 'content-type': 'application/json' },
      ...(payload === undefined ? {} : { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) }),
    });
  /** A payout request a second after the previous one (the rate limit is 1 a second per user). */
  const request = async (m: Member, body?: unknown, app = t) => {
    clock.advance(1000);
    return send(m, 'POST', '/merchant/affiliate/payouts', body, app);
  };
  const refused = async (res: { statusCode: number; json(): unknown }, status: number, error: string) => {
    expect([res.statusCode, res.json()]).toEqual([status, { error }]);
  };
  const balance = async (a: Aff) => (await send(a.owner, 'GET', '/merchant/affiliate')).json().balance;

  async function setup(amount = '1000', app = t): Promise<Aff> {
    const acct = await signupAccount(app.app);
    const id = acct.merchant.id;
    const [owner, finance, developer, viewer] = await Promise.all((['owner', 'finance', 'developer', 'viewer'] as const).map((r) => member(app, id, r)));
    const trc = await addAddress({ owner } as Aff, 'USDT_TRC20', ADDR.TRON, '', app);
    if (amount !== '0') await credit(app, id, amount);
    return { id, owner, finance, developer, viewer, trc };
  }
  async function addAddress(a: Aff, token: string, address: string, mode = '', app = t): Promise<string> {
    const res = await send(a.owner, 'POST', `/merchant/payout-addresses${mode}`, { token, address, password: a.owner.password }, app);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().address.id;
  }
  const btcOf = (a: Aff) => addAddress(a, 'BTC', ADDR.BTC);
  const testTrcOf = (a: Aff) => addAddress(a, 'USDT_TRC20', ADDR.TRON_2, '?mode=test');

  describe('request', () => {
    it('holds the amount and answers 201 {payout}, due 3 business days later; told to owners and finance', async () => {
      const a = await setup();
      clock.set('2026-03-06T15:29:59Z');
      const res = await request(a.finance, { amount: '100.5' });
      expect(res.statusCode).toBe(201);
      const payout = res.json().payout;
      expect(payout).toEqual({
        id: expect.stringMatching(/^apo_/), affiliate_id: a.id, merchant_name: expect.any(String), token: 'USDT_TRC20', chain: 'tron',
        amount: '100.5', network_fee: '1', send_amount: '99.5', address_id: a.trc, address: ADDR.TRON, status: 'requested',
        due_at: '2026-03-11T15:30:00.000Z', requested_by: a.finance.userId, created_at: '2026-03-06T15:30:00.000Z', updated_at: '2026-03-06T15:30:00.000Z',
      });
      expect(await balance(a)).toEqual({ token: 'USDT_TRC20', chain: 'tron', available: '899.5', pending_payout: '100.5', paid_out: '0' });
      const evs = await h.db().orm.select().from(events).where(eq(events.merchantId, a.id)).orderBy(events.seq);
      expect(evs.filter((e) => e.type === 'affiliate:payout').map((e) => e.data)).toEqual([payout]);
      expect(evs.filter((e) => e.type === 'affiliate:balance').at(-1)!.data).toMatchObject({ available: '899.5', pending_payout: '100.5' });
      const note = evs.find((e) => e.type === 'notification' && (e.data as { category: string }).category === 'affiliates');
      expect(note!.data).toMatchObject({ category: 'affiliates', title: 'Payout requested', livemode: true, subject: payout.id });
      // the team is told what, where to and by when
      expect((note!.data as { body: string }).body).toBe(`A referral payout of 100.5 USDT_TRC20 to ${ADDR.TRON} was requested; it is due by 2026-03-11T15:30:00.000Z.`);
      for (const m of [a.owner, a.finance]) {
        const list = (await send(m, 'GET', '/merchant/notifications?category=affiliates')).json();
        expect(list.notifications.map((n: { title: string }) => n.title)).toEqual(['Payout requested']);
      }
      for (const m of [a.developer, a.viewer]) {
        expect((await send(m, 'GET', '/merchant/notifications?category=affiliates')).json().notifications).toEqual([]);
      }
      const [audit] = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.merchantId, a.id), eq(auditEntries.action, 'affiliate_payout.requested')));
      expect(audit).toMatchObject({ subject: payout.id });
      expect((await send(a.viewer, 'GET', '/merchant/balances')).json().balances.filter((b: { token: string }) => b.token === 'USDT_TRC20')).toEqual([]);
    });

    it('pays everything available when amount is absent or 0, to the default address, the oldest when none is default', async () => {
      const a = await setup('75.25');
      const res = await request(a.owner, { amount: 0 });
      expect(res.json().payout).toMatchObject({ amount: '75.25', send_amount: '74.25', address_id: a.trc });
      await send(a.owner, 'POST', `/merchant/affiliate/payouts/${res.json().payout.id}/cancel`);
      const second = (await send(a.owner, 'POST', '/merchant/payout-addresses', { token: 'USDT_TRC20', address: ADDR.TRON_2, password: a.owner.password })).json().address;
      await send(a.owner, 'PATCH' as 'POST', `/merchant/payout-addresses/${second.id}`, { default: true });
      clock.advance(24 * 3_600_000); // a second address of the coin is active 24 hours after it was set
      const again = await request(a.owner);
      expect(again.json().payout).toMatchObject({ amount: '75.25', address_id: second.id, address: ADDR.TRON_2 });
    });

    it('pays a Tron address outside the payout addresses with the password again (no address_id)', async () => {
      const a = await setup();
      // a null address_id is no address_id (not "both")
      const res = await request(a.owner, { amount: 60, address: ADDR.TRON_2, address_id: null, password: a.owner.password });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().payout).toMatchObject({ amount: '60', address: ADDR.TRON_2 });
      expect(res.json().payout).not.toHaveProperty('address_id');
    });

    describe('refusals, one per message of spec 7', () => {
      it('403 insufficient permissions for developers and viewers', async () => {
        const a = await setup();
        for (const m of [a.developer, a.viewer]) await refused(await request(m, { amount: 60 }), 403, ERR.role);
      });

      it('429 rate limit exceeded past 5 requests at once, then one a second, per member', async () => {
        const a = await setup();
        const got: number[] = [];
        for (let i = 0; i < 6; i++) got.push((await send(a.finance, 'POST', '/merchant/affiliate/payouts', { amount: -1 })).statusCode);
        expect(got).toEqual([400, 400, 400, 400, 400, 429]);
        const limited = await send(a.finance, 'POST', '/merchant/affiliate/payouts', { amount: -1 });
        await refused(limited, 429, ERR.rate);
        // one a second: the next request is admitted within a second
        expect(limited.headers['retry-after']).toBe('1');
        // another member has a limit of their own
        expect((await send(a.owner, 'POST', '/merchant/affiliate/payouts', { amount: -1 })).statusCode).toBe(400);
        clock.advance(1000);
        expect((await send(a.finance, 'POST', '/merchant/affiliate/payouts', { amount: -1 })).statusCode).toBe(400);
        expect((await send(a.finance, 'POST', '/merchant/affiliate/payouts', { amount: -1 })).statusCode).toBe(429);
      });

      it('400 invalid request body: not JSON, not an object, or an amount that is not a number', async () => {
        const a = await setup();
        for (const body of ['{"amount":', '[1]', '"60"', '42', { amount: 'sixty' }, { amount: true }, { amount: { v: 1 } }, { amount: '1e3' }, { amount: [60] }]) {
          await refused(await request(a.finance, body), 400, ERR.body);
        }
      });

      it('403 password is incorrect for an address without the right password', async () => {
        const a = await setup();
        for (const password of [undefined, '', 'wrong-password', 42]) {
          await refused(await request(a.owner, { amount: 60, address: ADDR.TRON_2, password }), 403, ERR.password);
        }
        // a member's password is their own
        await refused(await request(a.finance, { amount: 60, address: ADDR.TRON_2, password: a.owner.password }), 403, ERR.password);
      });

      it('after 5 wrong passwords, refuses only the re-check (429, after the body check): a request needing no password goes on', async () => {
        const a = await setup();
        for (let i = 0; i < 5; i++) await refused(await request(a.owner, { amount: 60, address: ADDR.TRON_2, password: 'wrong-password' }), 403, ERR.password);
        // a payout to a saved address re-checks nothing: it is no guess at the password
        const saved = await request(a.owner, { amount: 60, address_id: a.trc });
        expect(saved.statusCode, saved.body).toBe(201);
        await send(a.owner, 'POST', `/merchant/affiliate/payouts/${saved.json().payout.id}/cancel`);
        // a body that is not valid is answered as such (step 3 comes before the password's step 4)
        await refused(await request(a.owner, { amount: 'x', address: ADDR.TRON_2, password: a.owner.password }), 400, ERR.body);
        // the re-check itself waits out the window, even with the right password
        await refused(await request(a.owner, { amount: 60, address: ADDR.TRON_2, password: a.owner.password }), 429, ERR.rate);
        expect((await balance(a)).pending_payout).toBe('0');
      });

      it('409 while a payout is requested or processing', async () => {
        const a = await setup();
        const first = (await request(a.owner, { amount: 60 })).json().payout;
        await refused(await request(a.finance, { amount: 60 }), 409, ERR.open);
        await admin(t, 'POST', `/admin/affiliate/payouts/${first.id}/process`);
        await refused(await request(a.finance, { amount: 60 }), 409, ERR.open);
        await admin(t, 'POST', `/admin/affiliate/payouts/${first.id}/paid`, { tx_id: 'tx_1' });
        expect((await request(a.finance, { amount: 60 })).statusCode).toBe(201);
      });

      it('400 give address_id or address, not both', async () => {
        const a = await setup();
        await refused(await request(a.owner, { amount: 60, address_id: a.trc, address: ADDR.TRON, password: a.owner.password }), 400, ERR.both);
      });

      it('400 address is not a valid Tron address', async () => {
        const a = await setup();
        for (const address of ['T123', ADDR.EVM, `${ADDR.TRON.slice(0, -1)}x`, 12, { a: 1 }]) {
          await refused(await request(a.owner, { amount: 60, address, password: a.owner.password }), 400, ERR.tron);
        }
      });

      it('400 to the gateway\'s own Tron addresses or the USDT contract, given, chosen or the default', async () => {
        const a = await setup();
        const own = 'address belongs to this gateway: use an address of your own wallet';
        const contract = 'address is the USDT_TRC20 token contract: tokens sent there are lost';
        const keys = t.services.sending.keys;
        const deposit = (await createPayment(t.app, (await signupAccount(t.app)).testKey, { token: 'TRX' })).deposit_address as string;
        for (const address of [keys.hotAddress('tron', true), keys.hotAddress('tron', false), deposit]) {
          await refused(await request(a.owner, { amount: 60, address, password: a.owner.password }), 400, own);
        }
        await refused(await request(a.owner, { amount: 60, address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', password: a.owner.password }), 400, contract);
        // a payout address stored before the check (written here directly): named by id, or the default
        await h.db().orm.execute(sql`update payout_addresses set address = ${keys.hotAddress('tron', true)} where id = ${a.trc}`);
        await refused(await request(a.owner, { amount: 60, address_id: a.trc }), 400, own);
        await refused(await request(a.owner), 400, own);
        await h.db().orm.execute(sql`update payout_addresses set address = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' where id = ${a.trc}`);
        await refused(await request(a.owner, { amount: 60, address_id: a.trc }), 400, contract);
        expect(await balance(a)).toMatchObject({ available: '1000', pending_payout: '0' });
      });

      it('400 for an address of another coin', async () => {
        const a = await setup();
        await refused(await request(a.owner, { amount: 60, address_id: await btcOf(a) }), 400, ERR.coin);
      });

      it('400 unknown payout address: another merchant\'s, a test one, a deleted one, or no id at all', async () => {
        const a = await setup();
        const other = await setup('0');
        const btc = await btcOf(a);
        await send(a.owner, 'DELETE', `/merchant/payout-addresses/${btc}`);
        // a test-mode address of another coin is unknown too: not a live payout address at all
        const testBtc = await addAddress(a, 'BTC', ADDR.BTC, '?mode=test');
        for (const id of [other.trc, await testTrcOf(a), btc, testBtc, 'pa_nope', 'pa-x', 7, '']) {
          await refused(await request(a.owner, { amount: 60, address_id: id }), 400, ERR.unknown);
        }
      });

      it('409 to a payout address not active yet (new or changed: 24 hours), chosen or the default, as merchant payouts answer', async () => {
        const a = await setup();
        // a second USDT (Tron) address could redirect payouts: active 24 hours after it was set
        const res = await send(a.owner, 'POST', '/merchant/payout-addresses', { token: 'USDT_TRC20', address: ADDR.TRON_2, password: a.owner.password });
        const next = res.json().address;
        expect(new Date(next.active_at).getTime()).toBe(new Date(FRIDAY).getTime() + 24 * 3_600_000);
        const message = `this payout address is active from ${next.active_at}: a new or changed address can be paid out to 24 hours after it was set`;
        await refused(await request(a.owner, { amount: 60, address_id: next.id }), 409, message);
        // made the default, it is refused the same way when no address is named
        expect((await send(a.owner, 'PATCH' as 'POST', `/merchant/payout-addresses/${next.id}`, { default: true })).statusCode).toBe(200);
        await refused(await request(a.owner, { amount: 60 }), 409, message);
        // an address changed to another one starts its 24 hours again
        const changed = await send(a.owner, 'PATCH' as 'POST', `/merchant/payout-addresses/${a.trc}`, { address: ADDR.TRON_3, password: a.owner.password });
        expect(changed.statusCode, changed.body).toBe(200);
        const changedMessage = `this payout address is active from ${changed.json().address.active_at}: a new or changed address can be paid out to 24 hours after it was set`;
        await refused(await request(a.owner, { amount: 60, address_id: a.trc }), 409, changedMessage);
        expect((await balance(a)).pending_payout).toBe('0');
        // a day later both are paid to like any other
        clock.advance(24 * 3_600_000);
        expect((await request(a.owner, { amount: 60 })).json().payout).toMatchObject({ address_id: next.id, address: ADDR.TRON_2 });
      });

      it('409 until the very millisecond of active_at, paid to from it', async () => {
        const a = await setup();
        const next = (await send(a.owner, 'POST', '/merchant/payout-addresses', { token: 'USDT_TRC20', address: ADDR.TRON_2, password: a.owner.password })).json().address;
        const at = new Date(next.active_at).getTime();
        clock.set(new Date(at - 1));
        const early = await send(a.owner, 'POST', '/merchant/affiliate/payouts', { amount: 60, address_id: next.id });
        expect(early.statusCode).toBe(409);
        clock.set(new Date(at));
        const onTime = await send(a.owner, 'POST', '/merchant/affiliate/payouts', { amount: 60, address_id: next.id });
        expect([onTime.statusCode, onTime.json().payout?.address_id]).toEqual([201, next.id]);
      });

      it('holds once for two requests at once (PostgreSQL: the balance row locked): one 201, the other 409 open', async () => {
        const a = await setup('100');
        clock.advance(1000);
        const answers = await Promise.all([a.owner, a.finance].map((m) => send(m, 'POST', '/merchant/affiliate/payouts', { amount: 60 })));
        expect(answers.map((r) => r.statusCode).sort()).toEqual([201, 409]);
        expect(answers.find((r) => r.statusCode === 409)!.json()).toEqual({ error: ERR.open });
        expect(await balance(a)).toMatchObject({ available: '40', pending_payout: '60' });
      });

      it('400 without a live USDT (Tron) payout address or an address to pay', async () => {
        const a = await setup();
        // a test-mode USDT (Tron) address is never paid real money
        await testTrcOf(a);
        await send(a.owner, 'DELETE', `/merchant/payout-addresses/${a.trc}`);
        await refused(await request(a.owner, { amount: 60 }), 400, ERR.target);
      });

      it('400 amount must be more than 0 (negative)', async () => {
        const a = await setup();
        for (const amount of [-5, '-5', '-0.000001']) await refused(await request(a.owner, { amount }), 400, ERR.positive);
      });

      it('400 amount has more than 6 decimals', async () => {
        const a = await setup();
        for (const amount of ['60.1234567', 60.0000001]) await refused(await request(a.owner, { amount }), 400, ERR.decimals);
      });

      it('400 below the minimum, also when all of the balance is below it', async () => {
        const a = await setup('49.99');
        await refused(await request(a.owner, { amount: '49.999999' }), 400, ERR.min);
        await refused(await request(a.owner), 400, ERR.min);
        await refused(await request(a.owner, { amount: 0 }), 400, ERR.min);
      });

      it('accepts exactly the minimum, given or as all of the balance', async () => {
        const a = await setup('50');
        const given = await request(a.owner, { amount: '50' });
        expect(given.statusCode, given.body).toBe(201);
        expect(given.json().payout).toMatchObject({ amount: '50', send_amount: '49' });
        await send(a.owner, 'POST', `/merchant/affiliate/payouts/${given.json().payout.id}/cancel`);
        const all = await request(a.owner);
        expect(all.statusCode, all.body).toBe(201);
        expect(all.json().payout).toMatchObject({ amount: '50' });
      });

      it('400 more than the balance holds', async () => {
        const a = await setup('120');
        await refused(await request(a.owner, { amount: '120.000001' }), 400, ERR.holds('120'));
      });

      it('400 not more than the network fee (with a minimum below the fee: REFERRAL_MIN_PAYOUT_USD)', async () => {
        const t2 = await startTestApp(h.db(), { clock, env: { REFERRAL_MIN_PAYOUT_USD: '0.5', REFERRAL_PAYOUT_DAYS: '0' } });
        try {
          const a = await setup('0.8', t2);
          // the terms shown are the ones in force
          expect((await send(a.owner, 'GET', '/merchant/affiliate', undefined, t2)).json().payouts).toEqual({ min_payout_usd: '0.5', payout_days: 0 });
          await refused(await request(a.owner, { amount: 1 }, t2), 400, ERR.fee);
          // the balance (0.8) is checked after the fee: its message needs an amount above the fee
          await refused(await request(a.owner, { amount: '1.5' }, t2), 400, ERR.holds('0.8'));
          await refused(await request(a.owner, { amount: '0.4' }, t2), 400, 'the minimum payout is 0.50 USDT_TRC20');
          await credit(t2, a.id, '1');
          const ok = await request(a.owner, { amount: '1.8' }, t2);
          expect(ok.json().payout).toMatchObject({ amount: '1.8', send_amount: '0.8', due_at: clock.now().toISOString() });
        } finally {
          await t2.close();
        }
      });

      it('500 could not request the payout when the network fee cannot be quoted', async () => {
        const a = await setup();
        t.services.affiliate.useMarket({ snapshot: () => { throw new Error('no market'); } });
        try {
          await refused(await request(a.owner, { amount: 60 }), 500, ERR.failed);
          expect(await balance(a)).toMatchObject({ available: '1000', pending_payout: '0' });
          // the checks listed before the 500 still answer: more than the balance holds is a 400
          await refused(await request(a.owner, { amount: 1001 }), 400, ERR.holds('1000'));
          await refused(await request(a.owner, { amount: 10 }), 400, 'the minimum payout is 50.00 USDT_TRC20');
        } finally {
          t.services.affiliate.useMarket(t.services.market);
        }
      });
    });

    describe('the order of the checks', () => {
      it('role before rate limit and body: a developer with a bad body gets 403', async () => {
        const a = await setup();
        for (let i = 0; i < 7; i++) await refused(await send(a.developer, 'POST', '/merchant/affiliate/payouts', '{not json'), 403, ERR.role);
      });

      it('rate limit before the body: 429 to a bad body past the limit', async () => {
        const a = await setup();
        for (let i = 0; i < 5; i++) await send(a.finance, 'POST', '/merchant/affiliate/payouts', '{not json');
        await refused(await send(a.finance, 'POST', '/merchant/affiliate/payouts', '{not json'), 429, ERR.rate);
      });

      it('each check before the next', async () => {
        const a = await setup('30');
        const btc = await btcOf(a);
        const testTrc = await testTrcOf(a);
        const btcOnly = await setup('0');
        await send(btcOnly.owner, 'DELETE', `/merchant/payout-addresses/${btcOnly.trc}`);
        const wrong = 'wrong-password';
        await refused(await request(a.owner, { amount: 'x', address: 'bad', password: wrong }), 400, ERR.body);
        await refused(await request(a.owner, { amount: -1, address: 'bad', address_id: btc, password: wrong }), 403, ERR.password);
        await refused(await request(a.owner, { amount: -1, address: 'bad', address_id: btc, password: a.owner.password }), 400, ERR.both);
        await refused(await request(a.owner, { amount: -1, address: 'bad', password: a.owner.password }), 400, ERR.tron);
        await refused(await request(a.owner, { amount: -1, address_id: btc }), 400, ERR.coin);
        await refused(await request(a.owner, { amount: -1, address_id: testTrc }), 400, ERR.unknown);
        await refused(await request(btcOnly.owner, { amount: -1 }), 400, ERR.target);
        await refused(await request(a.owner, { amount: '-1.1234567' }), 400, ERR.positive);
        await refused(await request(a.owner, { amount: '1.1234567' }), 400, ERR.decimals);
        await refused(await request(a.owner, { amount: '40' }), 400, ERR.min);
        await refused(await request(a.owner), 400, ERR.min);
        await refused(await request(a.owner, { amount: '60' }), 400, ERR.holds('30'));
        // an open payout comes before the target and the amount
        await credit(t, a.id, '100');
        await request(a.owner, { amount: 60 });
        await refused(await request(a.owner, { amount: -1, address: 'bad', address_id: btc, password: a.owner.password }), 409, ERR.open);
        await refused(await request(a.owner, { amount: -1, address: 'bad', password: wrong }), 403, ERR.password);
      });
    });

    it('never answers 5xx to any JSON body', async () => {
      const a = await setup('0');
      await fc.assert(fc.asyncProperty(fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.dictionary(
        fc.constantFrom('amount', 'address', 'address_id', 'password'),
        fc.oneof(fc.string(), fc.double(), fc.integer(), fc.constant(ADDR.TRON), fc.constant(a.trc), fc.jsonValue({ maxDepth: 2 })),
      )), async (body) => {
        const res = await request(a.owner, body);
        expect(res.statusCode, `${JSON.stringify(body)} ${res.body}`).toBeLessThan(500);
        expect(typeof res.json().error).toBe('string');
      }), { numRuns: 60 });
    });
  });

  describe('after the request', () => {
    it('is cancelled by owners and finance only while requested: the amount is back', async () => {
      const a = await setup();
      const p = (await request(a.finance, { amount: 100 })).json().payout;
      for (const m of [a.developer, a.viewer]) await refused(await send(m, 'POST', `/merchant/affiliate/payouts/${p.id}/cancel`), 403, ERR.role);
      const other = await setup('0');
      await refused(await send(other.owner, 'POST', `/merchant/affiliate/payouts/${p.id}/cancel`), 404, 'not found');
      const res = await send(a.owner, 'POST', `/merchant/affiliate/payouts/${p.id}/cancel`);
      expect(res.statusCode).toBe(200);
      expect(res.json().payout).toMatchObject({ status: 'canceled', canceled_by: a.owner.userId, canceled_at: clock.now().toISOString() });
      expect(await balance(a)).toMatchObject({ available: '1000', pending_payout: '0' });
      await refused(await send(a.owner, 'POST', `/merchant/affiliate/payouts/${p.id}/cancel`), 409, ERR.state);
      const q = (await request(a.finance, { amount: 100 })).json().payout;
      await admin(t, 'POST', `/admin/affiliate/payouts/${q.id}/process`);
      await refused(await send(a.finance, 'POST', `/merchant/affiliate/payouts/${q.id}/cancel`), 409, ERR.state);
      for (const id of ['apo_nope', 'apo-x', 'x'.repeat(99)]) await refused(await send(a.finance, 'POST', `/merchant/affiliate/payouts/${id}/cancel`), 404, 'not found');
    });

    it('moves requested → processing → paid for the operator: tx_id set, the amount paid out, "Payout paid"', async () => {
      const a = await setup();
      const p = (await request(a.finance, { amount: 100 })).json().payout;
      await refused(await admin(t, 'POST', `/admin/affiliate/payouts/${p.id}/paid`, { tx_id: 'tx_early' }), 409, ERR.state);
      clock.advance(60_000);
      const processing = await admin(t, 'POST', `/admin/affiliate/payouts/${p.id}/process`);
      expect(processing.json().payout).toMatchObject({ status: 'processing', approved_at: clock.now().toISOString() });
      await refused(await admin(t, 'POST', `/admin/affiliate/payouts/${p.id}/process`), 409, ERR.state);
      for (const body of [{}, { tx_id: '' }, { tx_id: 5 }]) await refused(await admin(t, 'POST', `/admin/affiliate/payouts/${p.id}/paid`, body), 400, 'tx_id is required');
      await refused(await admin(t, 'POST', `/admin/affiliate/payouts/${p.id}/paid`, { tx_id: 'a\u0000' }), 400, 'tx_id must not contain NUL characters');
      await refused(await admin(t, 'POST', `/admin/affiliate/payouts/${p.id}/paid`, { tx_id: 't'.repeat(201) }), 400, 'tx_id must be at most 200 characters');
      clock.advance(1000);
      const paid = await admin(t, 'POST', `/admin/affiliate/payouts/${p.id}/paid`, { tx_id: 'abc123' });
      expect(paid.json().payout).toMatchObject({ status: 'paid', tx_id: 'abc123', paid_at: clock.now().toISOString() });
      expect(await balance(a)).toEqual({ token: 'USDT_TRC20', chain: 'tron', available: '900', pending_payout: '0', paid_out: '100' });
      await refused(await admin(t, 'POST', `/admin/affiliate/payouts/${p.id}/reject`, { note: 'late' }), 409, ERR.state);
      const titles = (await send(a.finance, 'GET', '/merchant/notifications?category=affiliates')).json().notifications.map((n: { title: string }) => n.title);
      expect(titles).toEqual(['Payout paid', 'Payout requested']);
      // the team can find the transaction from the notice
      const [paidNote] = (await send(a.finance, 'GET', '/merchant/notifications?category=affiliates')).json().notifications;
      expect(paidNote.body).toBe(`The referral payout of 100 USDT_TRC20 to ${ADDR.TRON} was paid (transaction abc123).`);
      const actions = (await h.db().orm.select().from(auditEntries).where(eq(auditEntries.subject, p.id)).orderBy(auditEntries.at)).map((e) => [e.action, (e.actor as { kind: string }).kind]);
      expect(actions).toEqual([['affiliate_payout.requested', 'merchant'], ['affiliate_payout.processing', 'admin'], ['affiliate_payout.paid', 'admin']]);
      const statuses = (await h.db().orm.select().from(events).where(and(eq(events.merchantId, a.id), eq(events.type, 'affiliate:payout'))).orderBy(events.seq))
        .map((e) => (e.data as { status: string }).status);
      expect(statuses).toEqual(['requested', 'processing', 'paid']);
    });

    it('is marked paid by the operator with an optional note saying how, when paid outside the usual flow', async () => {
      const a = await setup();
      const p = (await request(a.finance, { amount: 100 })).json().payout;
      await admin(t, 'POST', `/admin/affiliate/payouts/${p.id}/process`);
      for (const note of [5, ['x'], {}]) await refused(await admin(t, 'POST', `/admin/affiliate/payouts/${p.id}/paid`, { tx_id: 'abc', note }), 400, 'note must be text');
      await refused(await admin(t, 'POST', `/admin/affiliate/payouts/${p.id}/paid`, { tx_id: 'abc', note: 'n'.repeat(501) }), 400, 'note must be at most 500 characters');
      await refused(await admin(t, 'POST', `/admin/affiliate/payouts/${p.id}/paid`, { tx_id: 'abc', note: 'a\u0000' }), 400, 'note must not contain NUL characters');
      const paid = await admin(t, 'POST', `/admin/affiliate/payouts/${p.id}/paid`, { tx_id: 'exchange-withdrawal-77', note: '  sent from the exchange account by hand  ' });
      expect(paid.statusCode).toBe(200);
      expect(paid.json().payout).toMatchObject({ status: 'paid', tx_id: 'exchange-withdrawal-77', note: 'sent from the exchange account by hand' });
      expect((await send(a.finance, 'GET', `/merchant/affiliate/payouts/${p.id}`)).json().payout.note).toBe('sent from the exchange account by hand');
      // without a note (or a blank one) the payout has none
      for (const note of [undefined, null, '   ']) {
        const q = (await request(a.finance, { amount: 100 })).json().payout;
        await admin(t, 'POST', `/admin/affiliate/payouts/${q.id}/process`);
        const res = await admin(t, 'POST', `/admin/affiliate/payouts/${q.id}/paid`, { tx_id: 'tx', ...(note === undefined ? {} : { note }) });
        expect(res.json().payout.status).toBe('paid');
        expect(res.json().payout).not.toHaveProperty('note');
      }
    });

    it('is rejected by the operator from requested or processing with a note: the amount is back, "Payout rejected"', async () => {
      const a = await setup();
      for (const process of [false, true]) {
        const p = (await request(a.finance, { amount: 100 })).json().payout;
        if (process) await admin(t, 'POST', `/admin/affiliate/payouts/${p.id}/process`);
        await refused(await admin(t, 'POST', `/admin/affiliate/payouts/${p.id}/reject`, {}), 400, 'note is required');
        await refused(await admin(t, 'POST', `/admin/affiliate/payouts/${p.id}/reject`, { note: 'n'.repeat(501) }), 400, 'note must be at most 500 characters');
        const res = await admin(t, 'POST', `/admin/affiliate/payouts/${p.id}/reject`, { note: 'address flagged' });
        expect(res.json().payout).toMatchObject({ status: 'rejected', note: 'address flagged', rejected_at: clock.now().toISOString() });
        expect(await balance(a)).toMatchObject({ available: '1000', pending_payout: '0', paid_out: '0' });
      }
      const [n] = (await send(a.owner, 'GET', '/merchant/notifications?category=affiliates')).json().notifications;
      expect(n).toMatchObject({ title: 'Payout rejected', body: expect.stringContaining('address flagged') });
      // the statement says why the amount came back
      const releases = await h.db().orm.select().from(affiliateEntries).where(and(eq(affiliateEntries.affiliateId, a.id), eq(affiliateEntries.type, 'payout_release')));
      expect(releases.map((e) => [e.amount, e.note])).toEqual([[100_000_000n, 'address flagged'], [100_000_000n, 'address flagged']]);
    });

    it('refuses every move from a final status (paid, rejected, canceled) with 409, the balance and the payout untouched', async () => {
      const a = await setup();
      const finals: [string, string][] = [];
      const p = (await request(a.finance, { amount: 100 })).json().payout;
      await admin(t, 'POST', `/admin/affiliate/payouts/${p.id}/process`);
      await admin(t, 'POST', `/admin/affiliate/payouts/${p.id}/paid`, { tx_id: 'paid-1' });
      finals.push([p.id, 'paid']);
      const r = (await request(a.finance, { amount: 100 })).json().payout;
      await admin(t, 'POST', `/admin/affiliate/payouts/${r.id}/reject`, { note: 'no' });
      finals.push([r.id, 'rejected']);
      const c = (await request(a.finance, { amount: 100 })).json().payout;
      await send(a.owner, 'POST', `/merchant/affiliate/payouts/${c.id}/cancel`);
      finals.push([c.id, 'canceled']);
      const before = await balance(a);
      expect(before).toMatchObject({ available: '900', pending_payout: '0', paid_out: '100' });
      for (const [id, status] of finals) {
        const was = (await send(a.owner, 'GET', `/merchant/affiliate/payouts/${id}`)).json().payout;
        expect(was.status).toBe(status);
        clock.advance(1000);
        await refused(await send(a.owner, 'POST', `/merchant/affiliate/payouts/${id}/cancel`), 409, ERR.state);
        await refused(await admin(t, 'POST', `/admin/affiliate/payouts/${id}/process`), 409, ERR.state);
        await refused(await admin(t, 'POST', `/admin/affiliate/payouts/${id}/paid`, { tx_id: 'again' }), 409, ERR.state);
        await refused(await admin(t, 'POST', `/admin/affiliate/payouts/${id}/reject`, { note: 'again' }), 409, ERR.state);
        expect((await send(a.owner, 'GET', `/merchant/affiliate/payouts/${id}`)).json().payout).toEqual(was);
      }
      expect(await balance(a)).toEqual(before);
      const statuses = (await h.db().orm.select().from(events).where(and(eq(events.merchantId, a.id), eq(events.type, 'affiliate:payout'))).orderBy(events.seq))
        .map((e) => `${(e.data as { id: string }).id} ${(e.data as { status: string }).status}`);
      expect(statuses).toEqual([`${p.id} requested`, `${p.id} processing`, `${p.id} paid`, `${r.id} requested`, `${r.id} rejected`, `${c.id} requested`, `${c.id} canceled`]);
    });

    it('lets exactly one of two racing moves win (cancel against process or reject, process twice, paid against reject): the amount moved once, one event per move', async () => {
      const a = await setup();
      const race = async (moves: (() => Promise<{ statusCode: number; json(): unknown }>)[]) => {
        const answers = (await Promise.all(moves.map((m) => m()))).map((r) => [r.statusCode, r.json()] as const);
        expect(answers.filter(([code]) => code === 200)).toHaveLength(1);
        for (const answer of answers.filter(([code]) => code !== 200)) expect(answer).toEqual([409, { error: ERR.state }]);
        return answers.findIndex(([code]) => code === 200);
      };
      const cancel = (id: string) => () => send(a.owner, 'POST', `/merchant/affiliate/payouts/${id}/cancel`);
      const move = (id: string, verb: string, body?: unknown) => () => admin(t, 'POST', `/admin/affiliate/payouts/${id}/${verb}`, body);
      const statusOf = async (id: string) => (await send(a.owner, 'GET', `/merchant/affiliate/payouts/${id}`)).json().payout.status;

      const p1 = (await request(a.finance, { amount: 100 })).json().payout.id;
      const w1 = await race([cancel(p1), move(p1, 'process')]);
      expect(await statusOf(p1)).toBe(['canceled', 'processing'][w1]);
      if (w1 === 1) await move(p1, 'reject', { note: 'cleared' })();
      const p2 = (await request(a.finance, { amount: 100 })).json().payout.id;
      const w2 = await race([cancel(p2), move(p2, 'reject', { note: 'flagged' })]);
      expect(await statusOf(p2)).toBe(['canceled', 'rejected'][w2]);
      const p3 = (await request(a.finance, { amount: 100 })).json().payout.id;
      await race([move(p3, 'process'), move(p3, 'process')]);
      const w3 = await race([move(p3, 'paid', { tx_id: 'tx-race' }), move(p3, 'reject', { note: 'late' })]);
      expect(await statusOf(p3)).toBe(['paid', 'rejected'][w3]);
      // all three back or paid out exactly once
      const paid = w3 === 0 ? 100 : 0;
      expect(await balance(a)).toMatchObject({ available: String(1000 - paid), pending_payout: '0', paid_out: String(paid) });
      const seen = (await h.db().orm.select().from(events).where(and(eq(events.merchantId, a.id), eq(events.type, 'affiliate:payout'))).orderBy(events.seq))
        .map((e) => `${(e.data as { id: string }).id} ${(e.data as { status: string }).status}`);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.filter((x) => x.startsWith(p3))).toEqual([`${p3} requested`, `${p3} processing`, `${p3} ${['paid', 'rejected'][w3]}`]);
      const releases = await h.db().orm.select().from(affiliateEntries).where(and(eq(affiliateEntries.affiliateId, a.id), eq(affiliateEntries.type, 'payout_release')));
      expect(releases).toHaveLength(2 + (w3 === 1 ? 1 : 0));
    });

    it('is canceled with its saved address when that is deleted, by the member who deleted it: the amount is back; a processing one goes on', async () => {
      const a = await setup();
      // another address of the coin, active (as if added a day ago), for a payout the operator is processing
      const other = await addAddress(a, 'USDT_TRC20', ADDR.TRON_2);
      await h.db().orm.execute(sql`update payout_addresses set active_at = created_at where id = ${other}`);
      const p = (await request(a.finance, { amount: 100, address_id: a.trc })).json().payout;
      expect(await balance(a)).toMatchObject({ available: '900', pending_payout: '100' });
      clock.advance(1000);
      expect((await send(a.owner, 'DELETE', `/merchant/payout-addresses/${a.trc}`)).json()).toEqual({ message: 'address deleted' });
      const read = (await send(a.owner, 'GET', `/merchant/affiliate/payouts/${p.id}`)).json().payout;
      expect(read).toMatchObject({ status: 'canceled', canceled_by: a.owner.userId, canceled_at: clock.now().toISOString() });
      expect(await balance(a)).toMatchObject({ available: '1000', pending_payout: '0', paid_out: '0' });
      await refused(await admin(t, 'POST', `/admin/affiliate/payouts/${p.id}/process`), 409, ERR.state);
      const evs = await h.db().orm.select().from(events).where(and(eq(events.merchantId, a.id), eq(events.type, 'affiliate:payout'))).orderBy(events.seq);
      expect(evs.at(-1)!.data).toMatchObject({ id: p.id, status: 'canceled' });
      const [audit] = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.subject, p.id), eq(auditEntries.action, 'affiliate_payout.canceled')));
      expect(audit).toMatchObject({ note: 'its payout address was deleted' });
      const releases = await h.db().orm.select().from(affiliateEntries).where(and(eq(affiliateEntries.affiliateId, a.id), eq(affiliateEntries.reference, p.id))).orderBy(affiliateEntries.seq);
      expect(releases.map((e) => [e.type, e.amount])).toEqual([['payout_hold', -100_000_000n], ['payout_release', 100_000_000n]]);

      // a processing payout may be on its way: it goes on, as an approved merchant payout does
      const q = (await request(a.finance, { amount: 100, address_id: other })).json().payout;
      await admin(t, 'POST', `/admin/affiliate/payouts/${q.id}/process`);
      expect((await send(a.owner, 'DELETE', `/merchant/payout-addresses/${other}`)).statusCode).toBe(200);
      expect((await send(a.owner, 'GET', `/merchant/affiliate/payouts/${q.id}`)).json().payout.status).toBe('processing');
      expect(await balance(a)).toMatchObject({ available: '900', pending_payout: '100' });
    });

    it('is canceled when its saved address is changed, by the member who changed it: the amount is back; a label or default change cancels nothing', async () => {
      const a = await setup();
      const p = (await request(a.finance, { amount: 100, address_id: a.trc })).json().payout;
      expect(p).toMatchObject({ status: 'requested', address: ADDR.TRON });
      // a new label, or the default moved away and back: the payout still goes where it was asked to
      expect((await send(a.owner, 'PATCH' as 'POST', `/merchant/payout-addresses/${a.trc}`, { label: 'cold wallet' })).statusCode).toBe(200);
      const other = await addAddress(a, 'USDT_TRC20', ADDR.TRON_2);
      expect((await send(a.owner, 'PATCH' as 'POST', `/merchant/payout-addresses/${other}`, { default: true })).statusCode).toBe(200);
      expect((await send(a.owner, 'PATCH' as 'POST', `/merchant/payout-addresses/${a.trc}`, { default: true })).statusCode).toBe(200);
      expect((await send(a.owner, 'GET', `/merchant/affiliate/payouts/${p.id}`)).json().payout.status).toBe('requested');
      expect(await balance(a)).toMatchObject({ available: '900', pending_payout: '100', paid_out: '0' });

      clock.advance(1000);
      const changed = await send(a.owner, 'PATCH' as 'POST', `/merchant/payout-addresses/${a.trc}`, { address: ADDR.TRON_3, password: a.owner.password });
      expect(changed.statusCode, changed.body).toBe(200);
      const read = (await send(a.owner, 'GET', `/merchant/affiliate/payouts/${p.id}`)).json().payout;
      expect(read).toMatchObject({ status: 'canceled', address: ADDR.TRON, canceled_by: a.owner.userId, canceled_at: clock.now().toISOString() });
      expect(await balance(a)).toMatchObject({ available: '1000', pending_payout: '0', paid_out: '0' });
      await refused(await admin(t, 'POST', `/admin/affiliate/payouts/${p.id}/process`), 409, ERR.state);
      const evs = await h.db().orm.select().from(events).where(eq(events.merchantId, a.id)).orderBy(events.seq);
      expect(evs.filter((e) => e.type === 'affiliate:payout').at(-1)!.data).toMatchObject({ id: p.id, status: 'canceled' });
      expect(evs.filter((e) => e.type === 'affiliate:balance').at(-1)!.data).toMatchObject({ available: '1000', pending_payout: '0' });
      const [audit] = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.subject, p.id), eq(auditEntries.action, 'affiliate_payout.canceled')));
      expect(audit).toMatchObject({ actor: { id: a.owner.userId }, note: 'its payout address was changed' });
      const releases = await h.db().orm.select().from(affiliateEntries).where(and(eq(affiliateEntries.affiliateId, a.id), eq(affiliateEntries.reference, p.id))).orderBy(affiliateEntries.seq);
      expect(releases.map((e) => [e.type, e.amount])).toEqual([['payout_hold', -100_000_000n], ['payout_release', 100_000_000n]]);
    });

    it('answers 404 to the operator for an unknown payout and 401 without the token', async () => {
      for (const verb of ['process', 'paid', 'reject']) {
        await refused(await admin(t, 'POST', `/admin/affiliate/payouts/apo_nope/${verb}`, { tx_id: 'x', note: 'x' }), 404, 'not found');
        const res = await t.app.inject({ method: 'POST', url: `/admin/affiliate/payouts/apo_nope/${verb}`, remoteAddress: randomIp() });
        await refused(res, 401, 'invalid admin token');
      }
    });
  });

  describe('reading', () => {
    it('reads one payout of the merchant; 404 for another\'s or an unknown one', async () => {
      const a = await setup();
      const p = (await request(a.finance, { amount: 100 })).json().payout;
      const res = await send(a.owner, 'GET', `/merchant/affiliate/payouts/${p.id}`);
      expect([res.statusCode, res.json()]).toEqual([200, { payout: p }]);
      const other = await setup('0');
      await refused(await send(other.owner, 'GET', `/merchant/affiliate/payouts/${p.id}`), 404, 'not found');
      await refused(await send(a.owner, 'GET', '/merchant/affiliate/payouts/apo_nope'), 404, 'not found');
      for (const m of [a.developer, a.viewer]) await refused(await send(m, 'GET', `/merchant/affiliate/payouts/${p.id}`), 403, ERR.role);
    });

    it('500 could not list / read / cancel the payout when the payouts cannot be read; the payout is untouched', async () => {
      const a = await setup();
      const p = (await request(a.finance, { amount: 100 })).json().payout;
      await h.db().orm.execute(sql`alter table affiliate_payouts rename to affiliate_payouts_away`);
      try {
        await refused(await send(a.owner, 'GET', '/merchant/affiliate/payouts'), 500, 'could not list the payouts');
        await refused(await send(a.owner, 'GET', `/merchant/affiliate/payouts/${p.id}`), 500, 'could not read the payout');
        await refused(await send(a.owner, 'POST', `/merchant/affiliate/payouts/${p.id}/cancel`), 500, 'could not cancel the payout');
      } finally {
        await h.db().orm.execute(sql`alter table affiliate_payouts_away rename to affiliate_payouts`);
      }
      expect((await send(a.owner, 'GET', `/merchant/affiliate/payouts/${p.id}`)).json().payout).toMatchObject({ status: 'requested' });
      expect(await balance(a)).toMatchObject({ available: '900', pending_payout: '100' });
    });

    it('lists newest first, the open ones first by due date, with status filter and limits', async () => {
      const affs = await Promise.all([0, 1, 2].map(() => setup()));
      const [a, b, c] = affs;
      // c's payout is paid, newest of all; a's is due before b's (requested on Friday, b on Monday)
      const pa = (await request(a.owner, { amount: 100 })).json().payout;
      clock.set('2026-03-09T09:00:00Z');
      const pb = (await request(b.owner, { amount: 100 })).json().payout;
      const old = (await request(c.owner, { amount: 50 })).json().payout;
      await send(c.owner, 'POST', `/merchant/affiliate/payouts/${old.id}/cancel`);
      clock.advance(60_000);
      const pc = (await request(c.owner, { amount: 100 })).json().payout;
      await admin(t, 'POST', `/admin/affiliate/payouts/${pc.id}/process`);
      await admin(t, 'POST', `/admin/affiliate/payouts/${pc.id}/paid`, { tx_id: 'tx' });
      await admin(t, 'POST', `/admin/affiliate/payouts/${pa.id}/process`);
      expect(pb.due_at).toBe('2026-03-12T09:00:01.000Z');
      const all = (await admin(t, 'GET', '/admin/affiliate/payouts')).json();
      const mine = all.payouts.filter((p: { affiliate_id: string }) => affs.some((x) => x.id === p.affiliate_id)).map((p: { id: string }) => p.id);
      expect(mine).toEqual([pa.id, pb.id, pc.id, old.id]);
      const cList = (await send(c.finance, 'GET', '/merchant/affiliate/payouts')).json();
      expect(cList).toMatchObject({ total: 2, limit: 50, offset: 0 });
      expect(cList.payouts.map((p: { id: string }) => p.id)).toEqual([pc.id, old.id]);
      expect((await send(c.finance, 'GET', '/merchant/affiliate/payouts?status=canceled')).json().payouts.map((p: { id: string }) => p.id)).toEqual([old.id]);
      expect((await send(c.finance, 'GET', '/merchant/affiliate/payouts?limit=1&offset=1')).json()).toMatchObject({ limit: 1, offset: 1, payouts: [{ id: old.id }] });
      expect((await send(c.finance, 'GET', '/merchant/affiliate/payouts?limit=0')).json().limit).toBe(50);
      await refused(await send(c.finance, 'GET', '/merchant/affiliate/payouts?status=approved'), 400, 'status must be one of requested, processing, paid, rejected, canceled');
      for (const m of [c.developer, c.viewer]) await refused(await send(m, 'GET', '/merchant/affiliate/payouts'), 403, ERR.role);
    });
  });

  it('stores the notifications of the program in the affiliates category, always live', async () => {
    const a = await setup();
    await request(a.owner, { amount: 60 });
    const rows = await h.db().orm.select().from(notifications).where(and(eq(notifications.merchantId, a.id), eq(notifications.category, 'affiliates')));
    expect(rows.map((r) => [r.title, r.livemode])).toEqual([['Payout requested', true]]);
  });
});
