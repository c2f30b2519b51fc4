// The whole money path in test mode: a simulated confirmation is dispatched from the outbox to the
// settlement room, which settles on paper; the trail shows the settlement and its ledger, and the
// statement adds up (spec 1 Direct settlement rule 8, 2 Payment trail).
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { randomIp, signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import { createPayment, getPayment, type Json } from '../harness/payments.ts';
import { ADDR, expectLedgerHolds } from '../harness/settlement.ts';
import { keyHeader } from '../harness/accounts.ts';
import { dec, parseUnits, type Decimal } from '../../src/money/index.ts';

describeEachDb('payment to settlement', (h) => {
  let t: TestApp;
  let acct: Account;
  beforeAll(async () => {
    t = await startTestApp(h.db(), { env: { SIMULATION_STEP_MS: '0' } });
    acct = await signupAccount(t.app);
  });
  afterAll(async () => { await t.close(); });

  const confirmAndSettle = async (body: Json): Promise<Json> => {
    const p = await createPayment(t.app, acct.testKey, body);
    const sim = await t.app.inject({ method: 'POST', url: `/v1/payments/${p.id}/simulate`, headers: keyHeader(acct.testKey), payload: { outcome: 'confirmed' } });
    expect(sim.statusCode).toBe(200);
    for (let i = 0; i < 20; i++) {
      await t.services.payments.runDue();
      await t.platform.outbox.drainNow();
      const got = await getPayment(t.app, acct.testKey, p.id);
      if (got.status === 'confirmed') break;
    }
    await t.platform.outbox.drainNow();
    const trail = await t.app.inject({ method: 'GET', url: `/merchant/payments/${p.id}/trail`, headers: tokenHeader(acct.accessToken) });
    expect(trail.statusCode).toBe(200);
    return trail.json().trail;
  };

  it('credits the test balance when there is no test payout address, with fees, and the ledger adds up', async () => {
    const trail = await confirmAndSettle({ token: 'USDT_TRC20', amount_usd: '50' });
    expect(trail.payment.status).toBe('confirmed');
    expect(trail.settlements).toHaveLength(1);
    const s = trail.settlements[0].settlement;
    expect(s).toMatchObject({ payment_id: trail.payment.id, livemode: false, mode: 'custodial', token: 'USDT_TRC20', status: 'completed' });
    // amount = fees + net, and the dollars add up exactly
    // exact, in base units and in cents: no float anywhere near money, in tests either
    const units = (v: string) => parseUnits(v, 6)!;
    expect(units(s.amount)).toBe(units(s.service_fee) + units(s.network_fee) + units(s.conversion_fee) + units(s.net));
    const cents = [s.service_fee_usd, s.network_fee_usd, s.conversion_fee_usd, s.net_usd].reduce((a: Decimal, v: string) => a.plus(dec(v)), dec(0));
    expect(cents.eq(dec(s.usd_value))).toBe(true);
    expect(s.usd_rate).toBe('1');
    expect(trail.ledger.length).toBeGreaterThan(0);
    const balances = await t.app.inject({ method: 'GET', url: '/merchant/balances?mode=test', headers: tokenHeader(acct.accessToken) });
    const usdt = balances.json().balances.find((b: Json) => b.token === 'USDT_TRC20');
    expect(usdt.available).toBe(s.net);
    await expectLedgerHolds(h.db());
  });

  it('charges a deposit of the payment\'s coin the network fee recorded on the payment, not a later quote (spec 1 "Fees")', async () => {
    const market = t.services.settlement.market;
    const real = market.snapshot.bind(market);
    const p = await createPayment(t.app, acct.testKey, { token: 'USDT_TRC20', amount_usd: '100' });
    expect(p).toMatchObject({ network_fee: '1', network_fee_usd: '1', amount_due_usd: '102.03' });
    // the network got dearer between the coin's choice and the settlement
    const dear = vi.spyOn(market, 'snapshot').mockImplementation((live) => ({ ...real(live), USDT_TRC20: { ...real(live).USDT_TRC20, networkFeeUsd: dec(3) } }));
    try {
      const sim = await t.app.inject({ method: 'POST', url: `/v1/payments/${p.id}/simulate`, headers: keyHeader(acct.testKey), payload: { outcome: 'confirmed' } });
      expect(sim.statusCode).toBe(200);
      for (let i = 0; i < 20 && (await getPayment(t.app, acct.testKey, p.id)).status !== 'confirmed'; i++) {
        await t.services.payments.runDue();
        await t.platform.outbox.drainNow();
      }
      await t.platform.outbox.drainNow();
    } finally {
      dear.mockRestore();
    }
    const res = await t.app.inject({ method: 'GET', url: `/merchant/settlements?mode=test&payment_id=${p.id}`, headers: tokenHeader(acct.accessToken) });
    expect(res.json().settlements).toHaveLength(1);
    // the merchant receives the price in full
    expect(res.json().settlements[0]).toMatchObject({ amount: '102.03', service_fee: '1.0203', network_fee: '1', network_fee_usd: '1', net: '100.0097', net_usd: '100.01' });
    await expectLedgerHolds(h.db());
  });

  it('settles directly to a test payout address at once, without tx_id, and raises settlement.completed', async () => {
    const add = await t.app.inject({
      method: 'POST', url: '/merchant/payout-addresses?mode=test', remoteAddress: randomIp(), headers: tokenHeader(acct.accessToken),
      payload: { token: 'ETH', address: ADDR.EVM, password: acct.password },
    });
    expect(add.statusCode).toBe(201);
    const trail = await confirmAndSettle({ token: 'ETH', amount_usd: '40' });
    const s = trail.settlements[0].settlement;
    expect(s).toMatchObject({ mode: 'direct', token: 'ETH', status: 'completed', destination: ADDR.EVM });
    expect(s.tx_id).toBeUndefined();
    const evs = await t.app.inject({ method: 'GET', url: `/merchant/payments/${trail.payment.id}/events`, headers: tokenHeader(acct.accessToken) });
    const types = evs.json().events.map((e: Json) => e.type);
    expect(types).toEqual(['payment.detecting', 'payment.confirmed', 'settlement.completed']);
    const completed = evs.json().events[2];
    expect(completed.data.id).toBe(s.id);
    const settled = await t.app.inject({ method: 'GET', url: `/merchant/settlements?mode=test&payment_id=${trail.payment.id}`, headers: tokenHeader(acct.accessToken) });
    expect(settled.json().settlements).toHaveLength(1);
    await expectLedgerHolds(h.db());
  });
});
