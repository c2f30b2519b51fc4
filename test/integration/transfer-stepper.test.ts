// The transfer stepper's rules, one by one, on a real database against a scripted chain (the chain
// is the only thing faked: nonces, broadcasts, blocks and the pool answer as the test says). The
// anvil files show the same rules end to end; these pin the edges they cannot reach cheaply: the
// exact confirmation depth, a nonce used outside the service, a refused nonce given back, the
// fee-bump limit, the depth at which a nonce counts as taken by another transaction.
import { beforeEach, expect, it } from 'vitest';
import { eq, inArray } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { uid } from '../harness/accounts.ts';
import { ADDR } from '../harness/settlement.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { outgoingTransfers, recordTransfer, type TransferRow } from '../../src/chains/transfers/index.ts';
import { transferById } from '../../src/chains/transfers/store.ts';
import { giveBackNonce, lockSender, takeNonce, type Sender } from '../../src/chains/transfers/nonces.ts';
import { ChainStepper, NOTE_NONCE_TAKEN, NOTE_NOT_OURS } from '../../src/chains/transfers/stepper.ts';
import { ACTIVE_STATUSES, type TransferOutcomes } from '../../src/chains/transfers/types.ts';
import { ScriptedChain } from '../harness/scripted-chain.ts';

const CONFIRMATIONS = 3;
const STUCK_MS = 60_000;
const RETRY_MS = [1_000];

describeEachDb('transfer stepper', (h) => {
  let clock: ManualClock;
  let chain: ScriptedChain;
  let stepper: ChainStepper;
  let hot: string;
  const ended: Array<{ kind: 'final' | 'failed' | 'canceled'; id: string }> = [];
  const outcomes: TransferOutcomes = {
    async final(_tx, t) { ended.push({ kind: 'final', id: t.id }); },
    async failed(_tx, t) { ended.push({ kind: 'failed', id: t.id }); },
    async canceled(_tx, t) { ended.push({ kind: 'canceled', id: t.id }); },
  };
  const log = createLogger('silent');

  beforeEach(async () => {
    // each test sees only its own transfers: those an earlier test left open are closed
    await h.db().orm.update(outgoingTransfers).set({ status: 'canceled' }).where(inArray(outgoingTransfers.status, [...ACTIVE_STATUSES]));
    clock = new ManualClock();
    // a fresh sender each test: nonces are kept per address
    hot = `0x${uid().padEnd(40, '0').slice(0, 40)}`;
    chain = new ScriptedChain(hot, STUCK_MS);
    stepper = new ChainStepper(h.db(), chain, outcomes, clock, log, { confirmations: CONFIRMATIONS, retryDelaysMs: RETRY_MS, maxReplacements: 1, concurrency: 1 }, () => {});
    ended.length = 0;
  });

  const record = (amount = 1_000n) => recordTransfer(h.db().orm, {
    chain: 'ethereum', livemode: true, purpose: 'payout', token: 'ETH', fromAddress: hot, fromIndex: null, fromRole: 'hot',
    toAddress: ADDR.EVM_2, amount, reference: `po_${uid()}`,
  }, clock.now());
  const row = async (t: TransferRow) => (await transferById(h.db().orm, t.id))!;
  /** Sets the scripted tip and runs one pass. */
  const passAt = async (tip: bigint) => { chain.height = tip; await stepper.pass(); };

  it('a transfer whose dependency failed fails its try saying which one (a consolidation, a gas top-up) and why, and depends on it no more', async () => {
    for (const [purpose, words] of [['consolidation', 'consolidation'], ['gas_topup', 'gas top-up']] as const) {
      const dep = await recordTransfer(h.db().orm, {
        chain: 'ethereum', livemode: true, purpose, token: 'ETH', fromAddress: hot, fromIndex: null, fromRole: 'hot', toAddress: hot, amount: 5n, reference: `trf_${uid()}`,
      }, clock.now());
      await h.db().orm.update(outgoingTransfers).set({ status: 'failed', lastError: 'the node refused it' }).where(eq(outgoingTransfers.id, dep.id));
      const t = await record();
      await h.db().orm.update(outgoingTransfers).set({ dependsOn: dep.id }).where(eq(outgoingTransfers.id, t.id));
      await passAt(100n);
      expect(await row(t)).toMatchObject({ status: 'recorded', failures: 1, dependsOn: null, lastError: `${words} failed: the node refused it` });
      await h.db().orm.update(outgoingTransfers).set({ status: 'canceled' }).where(eq(outgoingTransfers.id, t.id));
    }
  });

  it('a transfer becomes final at exactly its chain\'s confirmations, not one block before, and is reported once', async () => {
    const t = await record();
    await passAt(100n);
    const sent = await row(t);
    expect(sent.status).toBe('sent');
    chain.included.set(chain.signed[0].txId, { txId: chain.signed[0].txId, block: 101n, ok: true, feePaid: 21_000n });
    await passAt(101n + BigInt(CONFIRMATIONS) - 2n);
    expect((await row(t)).status).toBe('mined');
    expect(ended).toEqual([]);
    await passAt(101n + BigInt(CONFIRMATIONS) - 1n);
    const final = await row(t);
    expect(final).toMatchObject({ status: 'final', block: 101n, minedFee: 21_000n, txId: chain.signed[0].txId, sentAmount: 1_000n });
    await passAt(200n);
    expect(ended).toEqual([{ kind: 'final', id: t.id }]);
  });

  it('a mined transfer whose block left the best chain goes back to sent, then counts in its new block', async () => {
    const t = await record();
    await passAt(100n);
    const tx = chain.signed[0].txId;
    chain.included.set(tx, { txId: tx, block: 101n, ok: true, feePaid: 21_000n });
    await passAt(101n);
    expect((await row(t)).status).toBe('mined');
    // re-included at once in another block (still short of final): the transfer follows it
    chain.included.set(tx, { txId: tx, block: 102n, ok: true, feePaid: 21_000n });
    await passAt(102n);
    expect(await row(t)).toMatchObject({ status: 'mined', block: 102n });
    chain.included.delete(tx);
    await passAt(102n);
    expect(await row(t)).toMatchObject({ status: 'sent', txId: null, block: null, minedFee: null });
    chain.included.set(tx, { txId: tx, block: 103n, ok: true, feePaid: 20_000n });
    await passAt(103n + BigInt(CONFIRMATIONS) - 2n);
    expect(await row(t)).toMatchObject({ status: 'mined', block: 103n });
    expect(ended).toEqual([]);
    await passAt(103n + BigInt(CONFIRMATIONS) - 1n);
    expect(await row(t)).toMatchObject({ status: 'final', block: 103n, minedFee: 20_000n });
  });

  it('nonces: the first is the chain\'s; a nonce used outside the service is never handed out again', async () => {
    chain.nonce = () => 4n;
    const a = await record();
    await passAt(100n);
    expect((await row(a)).nonce).toBe(4n);
    chain.included.set(chain.signed[0].txId, { txId: chain.signed[0].txId, block: 100n, ok: true, feePaid: 1n });
    // someone else sent two transactions from the hot wallet meanwhile
    chain.nonce = () => 7n;
    const b = await record();
    await passAt(100n);
    expect((await row(b)).nonce).toBe(7n);
    // and the service's own count leads when the chain lags (its transaction is not mined yet)
    chain.nonce = () => 7n;
    const c = await record();
    await passAt(100n);
    expect((await row(c)).nonce).toBe(8n);
  });

  it('a refused broadcast gives its nonce back: the next transfer signs with it; the refused one is retried, then given up', async () => {
    chain.nonce = () => 3n;
    const a = await record();
    chain.next.push({ kind: 'refused', why: 'intrinsic gas too low' });
    await passAt(100n);
    expect(await row(a)).toMatchObject({ status: 'recorded', nonce: null, failures: 1, lastError: 'intrinsic gas too low' });
    expect((await row(a)).nextAt.getTime()).toBe(clock.now().getTime() + RETRY_MS[0]);
    const b = await record();
    await passAt(100n);
    expect(await row(b)).toMatchObject({ status: 'sent', nonce: 3n });
    clock.advance(RETRY_MS[0]);
    chain.next.push({ kind: 'refused', why: 'still refused' });
    await passAt(100n);
    expect(await row(a)).toMatchObject({ status: 'failed', failures: 2, lastError: 'still refused' });
    expect(ended).toEqual([{ kind: 'failed', id: a.id }]);
  });

  it('a refusal at preparation that may pass later is tried again after the backoff; a permanent one is given up at once and reported once', async () => {
    const later = await record();
    chain.prepared.push({ kind: 'refused', why: 'the transfer would fail: execution reverted', permanent: false });
    await passAt(100n);
    expect(await row(later)).toMatchObject({ status: 'recorded', failures: 1, lastError: 'the transfer would fail: execution reverted' });
    expect((await row(later)).nextAt.getTime()).toBe(clock.now().getTime() + RETRY_MS[0]);
    expect(ended).toEqual([]);
    // tried again after the wait: it passes now
    clock.advance(RETRY_MS[0]);
    await passAt(100n);
    expect(await row(later)).toMatchObject({ status: 'sent', failures: 1, lastError: null });

    const never = await record();
    const why = 'the destination account requires a destination tag (RequireDest) and the payout address has none';
    chain.prepared.push({ kind: 'refused', why, permanent: true });
    await passAt(100n);
    expect(await row(never)).toMatchObject({ status: 'failed', failures: 1, nonce: null, lastError: why });
    expect(ended).toEqual([{ kind: 'failed', id: never.id }]);
    // nothing was signed for it, and later passes leave it alone
    clock.advance(RETRY_MS[0]);
    await passAt(100n);
    expect(chain.signed.map((s) => s.raw.split(':')[1])).toEqual([later.id]);
    expect(ended).toEqual([{ kind: 'failed', id: never.id }]);
  });

  it('a broadcast refused for want of funds gives its nonce back and waits for funds, counting no failure; funded, it is signed with that nonce', async () => {
    chain.nonce = () => 3n;
    const t = await record();
    chain.next.push({ kind: 'no_funds', why: 'insufficient funds for gas * price + value' });
    await passAt(100n);
    expect(await row(t)).toMatchObject({ status: 'recorded', waiting: 'funds', nonce: null, failures: 0, lastError: 'insufficient funds for gas * price + value' });
    expect(ended).toEqual([]);
    await passAt(100n);
    expect(await row(t)).toMatchObject({ status: 'sent', waiting: null, nonce: 3n, failures: 0 });
    expect(chain.signed.map((s) => s.nonce)).toEqual([3n, 3n]);
  });

  it('"nonce used" for a clear broadcast none of whose transactions is mined: signed again with the chain\'s next nonce, no failure counted', async () => {
    chain.nonce = () => 3n;
    const t = await record();
    chain.next.push({ kind: 'nonce_used', why: 'nonce too low' });
    await passAt(100n);
    expect(await row(t)).toMatchObject({ status: 'recorded', nonce: null, failures: 0, lastError: NOTE_NONCE_TAKEN });
    // someone else's transaction took nonce 3
    chain.nonce = () => 4n;
    await passAt(100n);
    expect(await row(t)).toMatchObject({ status: 'sent', nonce: 4n });
    expect(chain.signed.map((s) => s.nonce)).toEqual([3n, 4n]);
  });

  it('a broadcast no node answered clearly keeps its nonce: a later refusal or "nonce used" never signs it again (it may be out there)', async () => {
    chain.nonce = () => 5n;
    const t = await record();
    chain.next.push({ kind: 'uncertain', why: 'socket hang up' });
    await passAt(100n);
    expect(await row(t)).toMatchObject({ status: 'signed', uncertain: true, nonce: 5n });
    chain.next.push({ kind: 'refused', why: 'already known' });
    await passAt(100n);
    expect(await row(t)).toMatchObject({ status: 'signed', uncertain: true, nonce: 5n, failures: 0 });
    chain.next.push({ kind: 'nonce_used', why: 'nonce too low' });
    await passAt(100n);
    expect(await row(t)).toMatchObject({ status: 'signed', nonce: 5n, lastError: 'nonce too low' });
    expect(chain.signed).toHaveLength(1);
    // it was mined after all: counted as it is
    chain.included.set(chain.signed[0].txId, { txId: chain.signed[0].txId, block: 100n, ok: true, feePaid: 1n });
    chain.next.push({ kind: 'nonce_used', why: 'nonce too low' });
    await passAt(100n);
    expect(await row(t)).toMatchObject({ status: 'mined', txId: chain.signed[0].txId });
  });

  it('giveBackNonce gives back only the last nonce handed out', async () => {
    const s: Sender = { chain: 'ethereum', livemode: true, address: hot };
    const now = clock.now();
    const take = () => h.db().transaction(async (tx) => takeNonce(tx, s, await lockSender(tx, s, 0n, now), 0n, now));
    expect(await take()).toBe(0n);
    expect(await take()).toBe(1n);
    expect(await h.db().transaction((tx) => giveBackNonce(tx, s, 0n, now))).toBe(false);
    expect(await take()).toBe(2n);
    expect(await h.db().transaction((tx) => giveBackNonce(tx, s, 2n, now))).toBe(true);
    expect(await take()).toBe(2n);
  });

  it('a stuck transaction is bumped once (the limit) with the same nonce; one the node lost is broadcast again as it was', async () => {
    chain.nonce = () => 9n;
    const t = await record();
    await passAt(100n);
    const first = chain.signed[0];
    clock.advance(STUCK_MS - 1);
    await passAt(100n);
    expect(chain.broadcasts).toEqual([first.raw]);
    clock.advance(1);
    await passAt(100n);
    expect(chain.signed).toHaveLength(2);
    expect(chain.signed[1]).toMatchObject({ nonce: 9n, feeReserve: 20n });
    expect(await row(t)).toMatchObject({ status: 'sent', replacements: 1, nonce: 9n });
    expect(chain.broadcasts).toEqual([first.raw, chain.signed[1].raw]);
    clock.advance(STUCK_MS);
    await passAt(100n);
    expect(chain.signed).toHaveLength(2);
    // the node forgets it: the same bytes again, no new transaction
    chain.pool.clear();
    clock.advance(STUCK_MS);
    const before = chain.broadcasts.length;
    await passAt(100n);
    expect(chain.signed).toHaveLength(2);
    expect(chain.broadcasts.slice(before)).toEqual([chain.signed[1].raw]);
    // the first one (lower fee) is mined after all: the transfer counts it
    chain.included.set(first.txId, { txId: first.txId, block: 101n, ok: true, feePaid: 5n });
    await passAt(101n);
    expect(await row(t)).toMatchObject({ status: 'mined', txId: first.txId, minedFee: 5n });
  });

  it('a nonce counts as taken by another transaction only once that one is final: then the transfer is signed again', async () => {
    chain.nonce = () => 2n;
    const t = await record();
    await passAt(100n);
    clock.advance(STUCK_MS);
    // another transaction with nonce 2 was mined in block 101: the count is 3 from there on
    chain.nonce = (at) => (at === undefined || at >= 101n ? 3n : 2n);
    await passAt(101n + BigInt(CONFIRMATIONS) - 2n);
    expect(await row(t)).toMatchObject({ status: 'sent', nonce: 2n });
    clock.advance(STUCK_MS);
    await passAt(101n + BigInt(CONFIRMATIONS) - 1n);
    expect(await row(t)).toMatchObject({ status: 'recorded', nonce: null, lastError: NOTE_NONCE_TAKEN });
  });

  it('a reverted transaction fails the try and keeps the fee it burnt', async () => {
    const t = await record();
    await passAt(100n);
    chain.included.set(chain.signed[0].txId, { txId: chain.signed[0].txId, block: 101n, ok: false, feePaid: 7_777n });
    await passAt(101n);
    expect(await row(t)).toMatchObject({ status: 'recorded', failures: 1, feesPaid: 7_777n, nonce: null });
    expect((await h.db().orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.id, t.id)))[0].lastError).toBe(`transaction ${chain.signed[0].txId} reverted`);
  });
  it('a transaction that failed on chain is noted with what the chain said of it (XRP\'s tec code, Tron\'s result)', async () => {
    const t = await record();
    await passAt(100n);
    chain.included.set(chain.signed[0].txId, { txId: chain.signed[0].txId, block: 101n, ok: false, feePaid: 12n, failure: 'tecDST_TAG_NEEDED' });
    await passAt(101n);
    expect(await row(t)).toMatchObject({ status: 'recorded', failures: 1, feesPaid: 12n, lastError: `transaction ${chain.signed[0].txId} failed on chain: tecDST_TAG_NEEDED` });
  });
  it('a transfer from a deposit address the service did not derive is failed for good at once, never signed, and reported failed once', async () => {
    // no derivation index: the service holds no key for the address, so no retry can ever sign it
    const t = await recordTransfer(h.db().orm, {
      chain: 'ethereum', livemode: true, purpose: 'sweep', token: 'ETH', fromAddress: ADDR.EVM, fromIndex: null, fromRole: 'deposit',
      toAddress: hot, amount: 1_000n, reference: `pay_${uid()}`,
    }, clock.now());
    await passAt(100n);
    expect(await row(t)).toMatchObject({ status: 'failed', failures: 1, lastError: NOTE_NOT_OURS, nonce: null });
    // given up, not waiting for a retry: later passes leave it alone
    clock.advance(RETRY_MS[0] * 10);
    await passAt(100n);
    expect((await row(t)).status).toBe('failed');
    expect(chain.signed).toEqual([]);
    expect(chain.broadcasts).toEqual([]);
    expect(ended).toEqual([{ kind: 'failed', id: t.id }]);
  });
});
