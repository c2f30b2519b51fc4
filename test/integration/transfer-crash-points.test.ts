// "Intent before side effect", point by point: the service dies at each moment of sending (while
// signing, at the broadcast before or after the node took it, at a fee bump's broadcast) and a new
// stepper over the same database (the restart) finishes the transfer without losing it or sending
// it twice; and a second process whose pass read the rows before the first one signed never signs
// again. The anvil kill -9 files (chain-send-crash, chain-convert-crash) show the same end to end;
// these reach every moment, and fail if a broadcast ever precedes the commit of what it sends.
import { beforeEach, expect, it } from 'vitest';
import { asc, eq, inArray } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { uid } from '../harness/accounts.ts';
import { ADDR } from '../harness/settlement.ts';
import { Crash, ScriptedChain } from '../harness/scripted-chain.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { outgoingAttempts, outgoingTransfers, recordTransfer, type TransferRow } from '../../src/chains/transfers/index.ts';
import { transferById, walletsWaitingForFunds } from '../../src/chains/transfers/store.ts';
import { ChainStepper, NOTE_INPUTS_TAKEN, NOTE_NONCE_TAKEN } from '../../src/chains/transfers/stepper.ts';
import { ACTIVE_STATUSES, type TransferOutcomes } from '../../src/chains/transfers/types.ts';

const CONFIRMATIONS = 3;
const STUCK_MS = 60_000;

describeEachDb('transfer stepper: crashes and a second process', (h) => {
  let clock: ManualClock;
  let chain: ScriptedChain;
  let stepper: ChainStepper;
  let hot: string;
  const ended: Array<{ kind: string; id: string }> = [];
  /** The next report of a final transfer dies (the process is killed while the settlement or payout is told). */
  let crashReporting = false;
  const outcomes: TransferOutcomes = {
    async final(_tx, t) {
      if (crashReporting) {
        crashReporting = false;
        throw new Crash('while reporting a final transfer');
      }
      ended.push({ kind: 'final', id: t.id });
    },
    async failed(_tx, t) { ended.push({ kind: 'failed', id: t.id }); },
    async canceled(_tx, t) { ended.push({ kind: 'canceled', id: t.id }); },
  };
  const log = createLogger('silent');
  /** A process's stepper: nothing but the database (and the node) carries over between two of them. */
  const newProcess = (logger = log) => new ChainStepper(h.db(), chain, outcomes, clock, logger, { confirmations: CONFIRMATIONS, retryDelaysMs: [1_000], maxReplacements: 3, concurrency: 1 }, () => {});

  beforeEach(async () => {
    // each test sees only its own transfers: those an earlier test left open are closed
    await h.db().orm.update(outgoingTransfers).set({ status: 'canceled' }).where(inArray(outgoingTransfers.status, [...ACTIVE_STATUSES]));
    clock = new ManualClock();
    hot = `0x${uid().padEnd(40, '0').slice(0, 40)}`;
    chain = new ScriptedChain(hot, STUCK_MS);
    stepper = newProcess();
    ended.length = 0;
    crashReporting = false;
  });

  const record = () => recordTransfer(h.db().orm, {
    chain: 'ethereum', livemode: true, purpose: 'payout', token: 'ETH', fromAddress: hot, fromIndex: null, fromRole: 'hot',
    toAddress: ADDR.EVM_2, amount: 1_000n, reference: `po_${uid()}`,
  }, clock.now());
  const row = async (t: TransferRow) => (await transferById(h.db().orm, t.id))!;
  const stored = (t: TransferRow) => h.db().orm.select().from(outgoingAttempts).where(eq(outgoingAttempts.transferId, t.id)).orderBy(asc(outgoingAttempts.n));
  const passAt = async (s: ChainStepper, tip: bigint) => { chain.height = tip; await s.pass(); };
  /** A transfer signed with nonce `nonce` whose first broadcast kills the process, before or after the node took it. */
  const killedAtBroadcast = async (nonce: bigint, when: 'before-node' | 'after-node') => {
    chain.nonce = () => nonce;
    const t = await record();
    chain.crashNext(when);
    await passAt(stepper, 100n);
    return t;
  };
  /** Mines the transfer's signed transaction `i` in `block` and passes until it is final. */
  const finish = async (s: ChainStepper, t: TransferRow, i: number, block: bigint) => {
    chain.mine(chain.signed[i], block);
    await passAt(s, block + BigInt(CONFIRMATIONS) - 1n);
    expect(await row(t)).toMatchObject({ status: 'final', txId: chain.signed[i].txId });
    expect(ended).toEqual([{ kind: 'final', id: t.id }]);
  };

  it('killed while signing: nothing was taken, the restart signs with the same nonce', async () => {
    chain.nonce = () => 6n;
    const t = await record();
    chain.crashSigning = true;
    await passAt(stepper, 100n);
    expect(await row(t)).toMatchObject({ status: 'recorded', nonce: null });
    expect(await stored(t)).toEqual([]);
    await passAt(newProcess(), 100n);
    expect(await row(t)).toMatchObject({ status: 'sent', nonce: 6n });
    expect(chain.signed.map((s) => s.nonce)).toEqual([6n]);
  });

  it('killed at the broadcast before the node heard of it: the signed bytes were stored first, the restart broadcasts those bytes', async () => {
    const t = await killedAtBroadcast(4n, 'before-node');
    // what was being broadcast is committed: the signed bytes and their nonce
    expect(await row(t)).toMatchObject({ status: 'signed', nonce: 4n, uncertain: false });
    expect((await stored(t)).map((a) => [a.raw, a.nonce])).toEqual([[chain.broadcasts[0], 4n]]);
    const restarted = newProcess();
    await passAt(restarted, 100n);
    expect(await row(t)).toMatchObject({ status: 'sent', nonce: 4n });
    expect(chain.broadcasts).toEqual([chain.signed[0].raw, chain.signed[0].raw]);
    expect(chain.signed).toHaveLength(1);
    // the nonce stays taken: the next transfer gets the one after it
    const next = await record();
    await passAt(restarted, 100n);
    expect((await row(next)).nonce).toBe(5n);
    await finish(restarted, t, 0, 101n);
  });

  it('killed after the node took the broadcast (the answer lost): the restart finds it mined and never signs it again', async () => {
    const t = await killedAtBroadcast(2n, 'after-node');
    expect(await row(t)).toMatchObject({ status: 'signed', nonce: 2n, uncertain: false });
    // mined while the service was down: broadcast again, the node answers that its nonce is used
    chain.mine(chain.signed[0], 101n);
    chain.nonce = () => 3n;
    chain.next.push({ kind: 'nonce_used', why: 'nonce too low' });
    const restarted = newProcess();
    await passAt(restarted, 101n);
    expect(await row(t)).toMatchObject({ status: 'mined', txId: chain.signed[0].txId, nonce: 2n });
    expect(chain.signed).toHaveLength(1);
    await finish(restarted, t, 0, 101n);
    expect(chain.signed).toHaveLength(1);
  });

  it.each([
    { kind: 'refused', why: 'transaction underpriced' },
    { kind: 'no_funds', why: 'insufficient funds for gas * price + value' },
  ] as const)('killed after the node took the broadcast, the restart\'s broadcast $kind (another node, say): the nonce is kept, the sender waits, nothing is signed twice', async (refusal) => {
    const t = await killedAtBroadcast(2n, 'after-node');
    // a failover node refuses the same bytes for a reason of its own: that proves nothing about the node that took them
    const restarted = newProcess();
    chain.next.push(refusal);
    await passAt(restarted, 100n);
    const waiting = refusal.kind === 'no_funds' ? 'funds' : null;
    expect(await row(t)).toMatchObject({ status: 'signed', nonce: 2n, uncertain: true, failures: 0, waiting, lastError: refusal.why });
    // the operator is told the hot wallet needs funds (/admin/wallets)
    expect((await walletsWaitingForFunds(h.db().orm)).has('ethereum:true')).toBe(waiting !== null);
    // the next transfer of the sender waits: nonce 2 is not handed out again
    const next = await record();
    chain.next.push(refusal);
    await passAt(restarted, 100n);
    expect(await row(next)).toMatchObject({ status: 'recorded', nonce: null });
    // the first node mines what it took: counted, and the next one signs with nonce 3
    chain.mine(chain.signed[0], 101n);
    chain.nonce = () => 3n;
    chain.next.push({ kind: 'nonce_used', why: 'nonce too low' });
    await passAt(restarted, 101n);
    expect(await row(t)).toMatchObject({ status: 'mined', txId: chain.signed[0].txId, waiting: null });
    expect((await walletsWaitingForFunds(h.db().orm)).has('ethereum:true')).toBe(false);
    expect(await row(next)).toMatchObject({ status: 'sent', nonce: 3n });
    expect(chain.signed.map((s) => s.nonce)).toEqual([2n, 3n]);
    expect(ended).toEqual([]);
  });

  it('killed before the node heard of the broadcast, the restart\'s broadcast refused for its fee: kept, and after the stuck time replaced with a higher fee and the same nonce', async () => {
    const t = await killedAtBroadcast(6n, 'before-node');
    const restarted = newProcess();
    const underpriced = { kind: 'refused', why: 'max fee per gas less than block base fee' } as const;
    chain.next.push(underpriced);
    await passAt(restarted, 100n);
    expect(await row(t)).toMatchObject({ status: 'signed', nonce: 6n, uncertain: true, replacements: 0, lastError: underpriced.why });
    clock.advance(STUCK_MS - 1);
    chain.next.push(underpriced);
    await passAt(restarted, 100n);
    expect(chain.signed).toHaveLength(1);
    // its stuck time is up: the replacement is stored, then broadcast, and a node takes it
    clock.advance(1);
    chain.next.push(underpriced);
    await passAt(restarted, 100n);
    expect(chain.signed.map((s) => [s.nonce, s.feeReserve])).toEqual([[6n, 10n], [6n, 20n]]);
    expect((await stored(t)).map((a) => a.raw)).toEqual([chain.signed[0].raw, chain.signed[1].raw]);
    expect(await row(t)).toMatchObject({ status: 'sent', nonce: 6n, replacements: 1, lastError: null });
    expect(chain.broadcasts.at(-1)).toBe(chain.signed[1].raw);
    await finish(restarted, t, 1, 101n);
    expect(chain.signed).toHaveLength(2);
  });

  it('killed after the node took the broadcast, mined while the service was down, the restart\'s broadcast refused (spent inputs a node cannot place): found mined and final, never signed again', async () => {
    const t = await killedAtBroadcast(4n, 'after-node');
    chain.mine(chain.signed[0], 101n);
    chain.nonce = () => 5n;
    chain.next.push({ kind: 'refused', why: 'bad-txns-inputs-missingorspent' });
    await passAt(newProcess(), 101n + BigInt(CONFIRMATIONS) - 1n);
    expect(await row(t)).toMatchObject({ status: 'final', txId: chain.signed[0].txId, nonce: 4n, failures: 0 });
    expect(ended).toEqual([{ kind: 'final', id: t.id }]);
    expect(chain.signed).toHaveLength(1);
  });

  it('killed after the node took the broadcast, the transaction then dropped and its nonce taken by another: signed again only once that nonce is used at the final depth', async () => {
    const t = await killedAtBroadcast(2n, 'after-node');
    // the node dropped it, and a transaction from outside the service used nonce 2 in block 101
    chain.pool.delete(chain.signed[0].txId);
    chain.nonce = (at) => (at === undefined || at >= 101n ? 3n : 2n);
    const restarted = newProcess();
    // a reorganisation could still take that block away, and ours is somewhere: it keeps its nonce
    chain.next.push({ kind: 'nonce_used', why: 'nonce too low' });
    await passAt(restarted, 101n);
    expect(await row(t)).toMatchObject({ status: 'signed', nonce: 2n, uncertain: true, lastError: 'nonce too low' });
    chain.next.push({ kind: 'nonce_used', why: 'nonce too low' });
    await passAt(restarted, 101n + BigInt(CONFIRMATIONS) - 2n);
    expect(await row(t)).toMatchObject({ status: 'signed', nonce: 2n });
    // block 101 is final: none of ours can be mined any more, so it is signed again with the next nonce
    chain.next.push({ kind: 'nonce_used', why: 'nonce too low' });
    await passAt(restarted, 101n + BigInt(CONFIRMATIONS) - 1n);
    expect(await row(t)).toMatchObject({ status: 'recorded', nonce: null, uncertain: false, failures: 0, lastError: NOTE_NONCE_TAKEN });
    await passAt(restarted, 103n);
    expect(await row(t)).toMatchObject({ status: 'sent', nonce: 3n });
    expect(chain.signed.map((s) => s.nonce)).toEqual([2n, 3n]);
  });

  it('refused after its fee bumps for a reason no fee cures: held with its nonce, logged with its sender and nonce, and released by the operator\'s own transaction at that nonce', async () => {
    const t = await killedAtBroadcast(7n, 'after-node');
    chain.pool.delete(chain.signed[0].txId);
    const warnings: Array<Record<string, unknown>> = [];
    const restarted = newProcess(createLogger('warn', { write: (line: string) => { warnings.push(JSON.parse(line)); } }));
    const gasLimit = { kind: 'refused', why: 'exceeds block gas limit' } as const;
    // each pass: its broadcast again, then (once stuck) a replacement with a higher fee: all refused
    for (let pass = 0; pass < 6; pass++) {
      chain.next = [gasLimit, gasLimit];
      await passAt(restarted, 100n);
      clock.advance(STUCK_MS);
    }
    expect(chain.signed.map((s) => s.nonce)).toEqual([7n, 7n, 7n, 7n]);
    expect(await row(t)).toMatchObject({ status: 'signed', nonce: 7n, uncertain: true, replacements: 3, lastError: gasLimit.why });
    expect(warnings.filter((w) => w.msg === 'a signed transaction stays refused after its fee bumps'))
      .toEqual([expect.objectContaining({ transfer: t.id, from: hot, nonce: '7' }), expect.objectContaining({ transfer: t.id, from: hot, nonce: '7' })]);
    // the operator sends a transaction of their own with nonce 7 (README "Sending on chain"), mined in block 110
    chain.nonce = (at) => (at === undefined || at >= 110n ? 8n : 7n);
    chain.next = [{ kind: 'nonce_used', why: 'nonce too low' }];
    await passAt(restarted, 110n);
    expect(await row(t)).toMatchObject({ status: 'signed', nonce: 7n });
    chain.next = [{ kind: 'nonce_used', why: 'nonce too low' }];
    await passAt(restarted, 110n + BigInt(CONFIRMATIONS) - 1n);
    expect(await row(t)).toMatchObject({ status: 'recorded', nonce: null, uncertain: false, failures: 0, lastError: NOTE_NONCE_TAKEN });
    await passAt(restarted, 113n);
    expect(await row(t)).toMatchObject({ status: 'sent', nonce: 8n });
    await finish(restarted, t, 4, 114n);
    expect(chain.signed.map((s) => s.nonce)).toEqual([7n, 7n, 7n, 7n, 8n]);
  });

  it('without nonces (UTXO), killed after the node took the broadcast, its inputs then spent by another transaction: kept (same inputs, higher fee) until that spend is final, then signed again', async () => {
    chain.usesNonces = false;
    const t = await killedAtBroadcast(0n, 'after-node');
    expect(await row(t)).toMatchObject({ status: 'signed', nonce: null });
    // the node dropped it, and a transaction from outside the service spent its inputs in block 101
    chain.pool.delete(chain.signed[0].txId);
    chain.spentAt = 101n;
    const restarted = newProcess();
    const missing = { kind: 'refused', why: 'the node refused the transaction: bad-txns-inputs-missingorspent' } as const;
    chain.next = [missing];
    await passAt(restarted, 101n);
    expect(await row(t)).toMatchObject({ status: 'signed', uncertain: true, lastError: missing.why });
    // stuck, but block 101 may still be reorganised away: replaced (the same inputs), never signed anew
    clock.advance(STUCK_MS);
    chain.next = [missing, missing];
    await passAt(restarted, 101n + BigInt(CONFIRMATIONS) - 2n);
    expect(await row(t)).toMatchObject({ status: 'signed', uncertain: true, replacements: 1 });
    expect(chain.signed).toHaveLength(2);
    // block 101 is final: none of ours can be mined any more
    clock.advance(STUCK_MS);
    chain.next = [missing];
    await passAt(restarted, 101n + BigInt(CONFIRMATIONS) - 1n);
    expect(await row(t)).toMatchObject({ status: 'recorded', nonce: null, uncertain: false, failures: 0, lastError: NOTE_INPUTS_TAKEN });
    await passAt(restarted, 104n);
    expect(await row(t)).toMatchObject({ status: 'sent' });
    await finish(restarted, t, 2, 105n);
    expect(chain.signed).toHaveLength(3);
  });

  it('killed after the node took the broadcast of a transaction that expires (XRP, Tron): past its last block, the restart looks for it instead of broadcasting', async () => {
    chain.expiresAfter = 104n;
    const t = await killedAtBroadcast(7n, 'after-node');
    chain.mine(chain.signed[0], 102n);
    chain.nonce = () => 8n;
    // an expired transaction's bytes are refused by every node, mined or not: its refusal must not give its sequence back
    chain.next.push({ kind: 'refused', why: 'tefMAX_LEDGER' });
    const restarted = newProcess();
    await passAt(restarted, 105n);
    expect(await row(t)).toMatchObject({ status: 'final', txId: chain.signed[0].txId, nonce: 7n });
    expect(chain.broadcasts).toEqual([chain.signed[0].raw]);
    expect(chain.signed).toHaveLength(1);
  });

  it('killed at a fee bump\'s broadcast: the replacement was stored first; mined, it is the one counted and nothing is signed again', async () => {
    chain.nonce = () => 9n;
    const t = await record();
    await passAt(stepper, 100n);
    clock.advance(STUCK_MS);
    chain.crashNext('after-node');
    await passAt(stepper, 100n);
    expect(chain.signed.map((s) => s.nonce)).toEqual([9n, 9n]);
    expect((await stored(t)).map((a) => a.raw)).toEqual([chain.signed[0].raw, chain.signed[1].raw]);
    // the replacement is mined in block 101 (the first one leaves the pool): nonce 9 is used from there on
    chain.pool.delete(chain.signed[0].txId);
    chain.nonce = (at) => (at === undefined || at >= 101n ? 10n : 9n);
    const restarted = newProcess();
    clock.advance(STUCK_MS);
    await finish(restarted, t, 1, 101n);
    expect(chain.signed).toHaveLength(2);
  });

  it('killed while a final transfer is reported: it is final only with its report, so the restart reports it, once', async () => {
    const t = await record();
    await passAt(stepper, 100n);
    chain.mine(chain.signed[0], 101n);
    crashReporting = true;
    await passAt(stepper, 101n + BigInt(CONFIRMATIONS) - 1n);
    expect(await row(t)).toMatchObject({ status: 'mined', finalAt: null });
    expect(ended).toEqual([]);
    await finish(newProcess(), t, 0, 101n);
  });

  it('a second process whose pass read the transfer before the first one signed it does not sign it again', async () => {
    const t = await record();
    const other = newProcess();
    // the first process's whole pass happens while the second prepares the same transfer
    chain.onPrepare = async () => { chain.onPrepare = null; await passAt(other, 100n); };
    await passAt(stepper, 100n);
    expect(await row(t)).toMatchObject({ status: 'sent', nonce: 0n });
    expect(chain.signed).toHaveLength(1);
    expect(await stored(t)).toHaveLength(1);
    const next = await record();
    await passAt(stepper, 100n);
    expect((await row(next)).nonce).toBe(1n);
  });

  it('a transaction no node has taken yet holds back its sender\'s next one, also in a process that read the rows before it was signed', async () => {
    const first = await record();
    const second = await record();
    const other = newProcess();
    // no node answers the first one's broadcast clearly: signed, its nonce possibly out there
    chain.next.push({ kind: 'uncertain', why: 'socket hang up' });
    chain.onPrepare = async () => { chain.onPrepare = null; await passAt(other, 100n); };
    await passAt(stepper, 100n);
    expect(await row(first)).toMatchObject({ status: 'signed', uncertain: true, nonce: 0n });
    expect(await row(second)).toMatchObject({ status: 'recorded', nonce: null });
    expect(chain.signed).toHaveLength(1);
  });
});
