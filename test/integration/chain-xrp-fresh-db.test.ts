// A fresh database started with the same WALLET_MNEMONIC on an XRP service address that already
// sent (its sequences and its RequireDest AccountSet used by another database): the first sequence
// is the account's own (account_info, the open ledger), never the database's alone, so the second
// database's settlement is signed, applied and completed; its AccountSet is made again (a fee, no
// harm) with the next sequence and never fights the Payment.
import { afterAll, describe, expect, it } from 'vitest';
import { Wallet } from 'xrpl';
import { openTestDatabase } from '../harness/databases.ts';
import { randomIp, tokenHeader, signupAccount } from '../harness/accounts.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { createLivePayment, settlementsOf } from '../harness/chain-send.ts';
import { payXrp } from '../harness/xrp.ts';
import { startXrpSim, type XrpSim } from '../sim/xrp/server.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { parseUnits } from '../../src/money/index.ts';

describe('XRP: a fresh database on a service address that already sent', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => { for (const c of cleanups.reverse()) await c().catch(() => {}); });

  async function app(sim: XrpSim): Promise<TestApp> {
    const d = await openTestDatabase('pglite');
    cleanups.push(d.dispose);
    const t = await startTestApp(d.db, { clock: new ManualClock(new Date()), env: { XRP_RPC_URL: sim.wsUrl, CONFIRMATIONS_XRP: '1', SETTLEMENT_DELAY_S: '0', CHAIN_POLL_MS: '100' } });
    cleanups.push(() => t.close());
    return t;
  }

  async function settleOne(t: TestApp, sim: XrpSim, payout: string): Promise<void> {
    const acct = await signupAccount(t.app);
    expect((await t.app.inject({ method: 'POST', url: '/merchant/live', headers: tokenHeader(acct.accessToken), payload: { enabled: true } })).statusCode).toBe(200);
    expect((await t.app.inject({
      method: 'POST', url: '/merchant/payout-addresses', remoteAddress: randomIp(), headers: tokenHeader(acct.accessToken),
      payload: { token: 'XRP', address: payout, tag: 5, password: acct.password },
    })).statusCode).toBe(201);
    await t.services.watching.runOnce();
    const p = await createLivePayment(t, { acct, addresses: {}, addressIds: {} }, 'XRP');
    payXrp(sim, p.deposit_address, parseUnits(p.crypto_amount, 6)!, p.destination_tag);
    sim.close();
    for (let i = 0; i < 40; i++) {
      await t.services.sending.transfers.runOnce().catch(() => {});
      await t.services.watching.runOnce().catch(() => {});
      await t.platform.outbox.drainNow();
      if ((await settlementsOf(t, p.id))[0]?.status === 'completed') return;
      sim.close();
    }
    throw new Error(`the settlement did not complete: ${JSON.stringify(await settlementsOf(t, p.id))}`);
  }

  it('a second database with the same mnemonic settles: signed with the sequence account_info gives', async () => {
    const sim = await startXrpSim();
    cleanups.push(() => sim.stop());
    const payout = Wallet.generate().address;
    payXrp(sim, payout, 20_000_000n);
    const first = await app(sim);
    payXrp(sim, first.services.sending.keys.hotAddress('xrp', true), 30_000_000n, 1);
    sim.close();
    await settleOne(first, sim, payout);
    await first.close();
    const second = await app(sim);
    await settleOne(second, sim, payout);
    const service = second.services.sending.keys.hotAddress('xrp', true);
    const out = sim.ledger.closed.flatMap((l) => l.txs).filter((x) => x.tx.Account === service);
    // one Payment per database, one AccountSet per database, each with its own sequence, all applied
    expect(out.filter((x) => x.tx.TransactionType === 'Payment')).toHaveLength(2);
    expect(out.filter((x) => x.tx.TransactionType === 'AccountSet')).toHaveLength(2);
    expect(new Set(out.map((x) => x.tx.Sequence)).size).toBe(out.length);
    expect(out.every((x) => x.meta.TransactionResult === 'tesSUCCESS')).toBe(true);
  }, 120_000);
});
