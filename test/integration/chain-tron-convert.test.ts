// Tron's own-network swap (rule 5: TRX into USDT) carried out by the service's treasury on the
// simulated java-tron: a live TRX payment for a merchant with only a USDT_TRC20 address is swept
// into the service's Tron hot wallet, and the merchant receives exactly `amount_out` USDT from it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TronWeb } from 'tronweb';
import { eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { randomIp, tokenHeader, signupAccount, type Account } from '../harness/accounts.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { createLivePayment, settlementsOf } from '../harness/chain-send.ts';
import { expectLedgerHolds } from '../harness/settlement.ts';
import { base58Address, startTronSim, type TronSim } from '../sim/tron/server.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { parseUnits } from '../../src/money/index.ts';
import { outgoingTransfers } from '../../src/chains/transfers/index.ts';
import { NOTE_CONVERTING } from '../../src/settlement/settlement-writer.ts';

type TronAccount = { address: { base58: string }; privateKey: string };
const newAccount = async () => (await TronWeb.createAccount()) as unknown as TronAccount;

describeEachDb('Tron swap by the service\'s treasury on the simulated node', (h) => {
  let sim: TronSim;
  let t: TestApp;
  let acct: Account;
  let usdt: string;
  let customer: TronAccount;
  let tw: TronWeb;
  let payout: string;
  let hot: string;

  beforeAll(async () => {
    sim = await startTronSim();
    usdt = base58Address(sim.chain.deployToken(6));
    t = await startTestApp(h.db(), {
      clock: new ManualClock(new Date()),
      env: { TRON_API_URL: sim.url, TOKEN_CONTRACTS: `USDT_TRC20=${usdt}`, CONFIRMATIONS_TRON: '2', SETTLEMENT_DELAY_S: '0', CHAIN_POLL_MS: '100' },
    });
    customer = await newAccount();
    sim.chain.fund(customer.address.base58, 10_000_000_000n);
    hot = t.services.sending.keys.hotAddress('tron', true);
    // TRX for energy and USDT to pay converted settlements with
    sim.chain.fund(hot, 1_000_000_000n);
    sim.chain.mint(usdt, hot, 1_000_000_000n);
    sim.chain.mine(1);
    tw = new TronWeb({ fullHost: sim.url, privateKey: customer.privateKey });
    await watch();
    acct = await signupAccount(t.app);
    const live = await t.app.inject({ method: 'POST', url: '/merchant/live', headers: tokenHeader(acct.accessToken), payload: { enabled: true } });
    expect(live.statusCode).toBe(200);
    payout = (await newAccount()).address.base58;
    const res = await t.app.inject({
      method: 'POST', url: '/merchant/payout-addresses', remoteAddress: randomIp(), headers: tokenHeader(acct.accessToken),
      payload: { token: 'USDT_TRC20', address: payout, password: acct.password },
    });
    expect(res.statusCode).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await sim?.stop();
  });

  async function watch(): Promise<void> {
    await t.services.watching.runOnce();
    await t.platform.outbox.drainNow();
  }

  async function driveUntil(done: () => Promise<boolean>, max = 60): Promise<void> {
    for (let i = 0; i < max; i++) {
      await t.services.sending.transfers.runOnce().catch(() => {});
      await t.services.settlement.advanceConversions();
      await t.services.watching.runOnce().catch(() => {});
      await t.platform.outbox.drainNow();
      if (await done()) return;
      sim.chain.mine(1);
    }
    throw new Error('not done');
  }

  it('TRX into USDT_TRC20: the merchant receives exactly amount_out from the hot wallet, the TRX is swept to the service', async () => {
    const p = await createLivePayment(t, { acct, addresses: {}, addressIds: {} }, 'TRX');
    const amount = parseUnits(p.crypto_amount, 6)!;
    const sent = await tw.trx.sendTransaction(p.deposit_address, Number(amount));
    expect((sent as { result?: boolean }).result).toBe(true);
    sim.chain.mine(2);
    await watch();
    const [pending] = await settlementsOf(t, p.id);
    expect(pending).toMatchObject({ mode: 'direct', status: 'pending', note: NOTE_CONVERTING, conversion: { via: 'swap', from: 'TRX', to: 'USDT_TRC20', status: 'pending' } });
    const hotUsdt = sim.chain.tokenBalance(usdt, hot);
    await driveUntil(async () => (await settlementsOf(t, p.id))[0].status === 'completed');
    const [s] = await settlementsOf(t, p.id);
    const out = parseUnits(s.conversion.amount_out, 6)!;
    expect(s.conversion.status).toBe('done');
    expect(sim.chain.tokenBalance(usdt, payout)).toBe(out);
    expect(hotUsdt - sim.chain.tokenBalance(usdt, hot)).toBe(out);
    expect(sim.chain.findTx(s.tx_id)!.tx.ret?.[0].contractRet).toBe('SUCCESS');
    const rows = await h.db().orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.reference, s.id));
    expect(rows.map((r) => [r.purpose, r.fromRole, r.token]).sort()).toEqual([['settlement', 'hot', 'USDT_TRC20'], ['sweep', 'deposit', 'TRX']]);
    await expectLedgerHolds(h.db());
  });
});
