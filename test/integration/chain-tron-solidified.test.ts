// Tron's solidified block is final whatever the confirmation count (issue "Live chains III"): with
// CONFIRMATIONS_TRON far above the solidity node's lag, a deposit counts up block by block and is
// final as soon as the solidified block reaches it, not at the 50th confirmation.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TronWeb } from 'tronweb';
import { describeEachDb } from '../harness/databases.ts';
import { keyHeader, tokenHeader, signupAccount, type Account } from '../harness/accounts.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { getPayment } from '../harness/payments.ts';
import { startTronSim, type TronSim } from '../sim/tron/server.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { parseUnits } from '../../src/money/index.ts';

describeEachDb('Tron: the solidified block is final', (h) => {
  let sim: TronSim;
  let t: TestApp;
  let acct: Account;

  beforeAll(async () => {
    sim = await startTronSim();
    sim.chain.solidityLag = 3;
    t = await startTestApp(h.db(), { clock: new ManualClock(new Date()), env: { TRON_API_URL: sim.url, CONFIRMATIONS_TRON: '50', CHAIN_POLL_MS: '100' } });
    acct = await signupAccount(t.app);
    const live = await t.app.inject({ method: 'POST', url: '/merchant/live', headers: tokenHeader(acct.accessToken), payload: { enabled: true } });
    expect(live.statusCode).toBe(200);
    sim.chain.mine(1);
    await t.services.watching.runOnce();
  });
  afterAll(async () => {
    await t?.close();
    await sim?.stop();
  });

  const watch = async () => {
    await t.services.watching.runOnce();
    await t.platform.outbox.drainNow();
  };

  it('a deposit is final once the solidified block holds it', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/payments', headers: keyHeader(acct.liveKey), payload: { order_id: 'o-solid', amount_usd: '20', token: 'TRX' } });
    expect(res.statusCode).toBe(201);
    const p = res.json();
    const customer = (await TronWeb.createAccount()) as unknown as { address: { base58: string }; privateKey: string };
    sim.chain.fund(customer.address.base58, 10_000_000_000n);
    sim.chain.mine(1);
    const tw = new TronWeb({ fullHost: sim.url, privateKey: customer.privateKey });
    expect((await tw.trx.sendTransaction(p.deposit_address, Number(parseUnits(p.crypto_amount, 6)!))).result).toBe(true);
    sim.chain.mine(1);
    await watch();
    let read = await getPayment(t.app, acct.liveKey, p.id);
    expect(read.status).toBe('detecting');
    expect(read.deposits[0]).toMatchObject({ confirmations: 1, confirmations_required: 50 });
    sim.chain.mine(2);
    await watch();
    read = await getPayment(t.app, acct.liveKey, p.id);
    expect(read.status).toBe('detecting');
    expect(read.deposits[0].confirmations).toBe(3);
    // the solidified block (3 behind the head) reaches the deposit's block
    sim.chain.mine(1);
    await watch();
    read = await getPayment(t.app, acct.liveKey, p.id);
    expect(read.status).toBe('confirmed');
    expect(read.deposits[0]).toMatchObject({ status: 'final', confirmations: 50 });
  });
});
