// The XRP transfer family against the simulated rippled (which verifies every signature): a payment
// of exactly the amount with the payout address's tag, sequence numbers, the account reserve kept,
// a destination that cannot be created refused, and a transaction lost past its LastLedgerSequence
// known lost and signed again with the same sequence (so at most one of them can ever be applied).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Wallet } from 'xrpl';
import { startXrpSim, type XrpSim } from '../../../test/sim/xrp/server.ts';
import { payXrp } from '../../../test/harness/xrp.ts';
import { LSF_DEPOSIT_AUTH, LSF_REQUIRE_DEST_TAG } from '../../../test/sim/xrp/ledger.ts';
import { TEST_MNEMONIC } from '../../../test/harness/app.ts';
import { freePort } from '../../../test/harness/process.ts';
import { NodeEndpoints } from '../rpc/endpoints.ts';
import { WalletKeys } from '../wallets/keys.ts';
import type { AttemptRow, TransferRow } from '../transfers/schema.ts';
import type { SignedTx } from '../transfers/types.ts';
import { XrpRpc } from './rpc.ts';
import { LEDGER_WINDOW, XrpFamily, submitOutcome } from './family.ts';

let sim: XrpSim;
let rpc: XrpRpc;
let family: XrpFamily;
const keys = new WalletKeys(TEST_MNEMONIC);
const hot = keys.hotAddress('xrp', true);
beforeAll(async () => {
  sim = await startXrpSim();
  rpc = new XrpRpc(new NodeEndpoints([sim.wsUrl]), 2_000);
  family = new XrpFamily(rpc, keys);
  payXrp(sim, hot, 100_000_000n);
  sim.close();
});
afterAll(async () => {
  rpc?.close();
  await sim?.stop();
});

const now = new Date();
function transfer(to: string, amount: bigint, tag: number | null = null): TransferRow {
  return {
    id: 'trf_test', seq: 1, chain: 'xrp', livemode: true, purpose: 'settlement', token: 'XRP', fromAddress: hot, fromRole: 'hot', fromIndex: null,
    toAddress: to, toTag: tag, amount, paysOwnFee: false, reference: 'stl_test', dependsOn: null, status: 'recorded', waiting: null, nonce: null,
    uncertain: false, txId: null, block: null, sentAmount: null, feesPaid: 0n, minedFee: null, failures: 0, replacements: 0, nextAt: now,
    lastError: null, createdAt: now, updatedAt: now, finalAt: null,
  };
}
const attempt = (s: SignedTx): AttemptRow => ({ transferId: 'trf_test', n: 1, txId: s.txId, raw: s.raw, nonce: s.nonce, value: s.value, fee: s.fee, feeReserve: s.feeReserve, createdAt: now, broadcastAt: null });
const ctx = { feesPaidBefore: 0n, unsentFromSender: [] };

async function signed(t: TransferRow): Promise<SignedTx> {
  const prep = await family.prepare(t, ctx);
  if (prep.kind !== 'ready') throw new Error(`not ready: ${JSON.stringify(prep)}`);
  return prep.sign(await family.chainNonce(hot));
}

describe('XRP transfer family', () => {
  it('sends exactly the amount with the payout address\'s tag; the fee is paid on top and read back as burnt', async () => {
    const to = Wallet.generate().address;
    const before = sim.ledger.accounts.get(hot)!.balance;
    const s = await signed(transfer(to, 10_000_000n, 77));
    expect(s.nonce).toBe(BigInt(sim.ledger.accounts.get(hot)!.sequence));
    expect(Number(s.fee.lastLedgerSequence)).toBe(sim.ledger.validatedIndex + LEDGER_WINDOW);
    expect(await family.broadcast(s.raw)).toEqual({ kind: 'accepted' });
    // the same bytes again: that sequence is used (by this very transaction)
    expect((await family.broadcast(s.raw)).kind).toBe('nonce_used');
    expect(await family.inclusion([s.txId])).toBeNull();
    const l = sim.close();
    expect(await family.tip()).toBe(BigInt(l.index));
    const inc = await family.inclusion(['AB'.repeat(32), s.txId]);
    expect(inc).toEqual({ txId: s.txId, block: BigInt(l.index), ok: true, feePaid: 10n });
    expect(sim.ledger.accounts.get(to)!.balance).toBe(10_000_000n);
    expect(l.txs.find((x) => x.hash === s.txId)!.tx).toMatchObject({ Destination: to, DestinationTag: 77, Amount: '10000000' });
    expect(sim.ledger.accounts.get(hot)!.balance).toBe(before - 10_000_000n - 10n);
    expect(await family.known(s.txId)).toBe(true);
    expect(await family.known('CD'.repeat(32))).toBe(false);
  });

  it('never spends the account reserve, and refuses a new destination below the reserve', async () => {
    const balance = sim.ledger.accounts.get(hot)!.balance;
    const all = await family.prepare(transfer(Wallet.generate().address, balance - 1_000_000n), ctx);
    expect(all).toMatchObject({ kind: 'no_funds', why: expect.stringContaining('1000000 of them its reserve') });
    const fits = await family.prepare(transfer(Wallet.generate().address, balance - 1_000_000n - 10n), ctx);
    expect(fits.kind).toBe('ready');
    expect(await family.prepare(transfer(Wallet.generate().address, 500_000n), ctx)).toEqual({
      kind: 'refused', why: 'the destination account does not exist and 500000 drops are below the 1000000 drops it needs to be created', permanent: true,
    });
    expect((await family.prepare({ ...transfer(hot, 1n), fromAddress: Wallet.generate().address }, ctx)).kind).toBe('refused');
  });

  it('refuses, before signing (no fee burnt), a payment the destination\'s flags would fail: RequireDest without a tag, DepositAuth', async () => {
    const tagged = Wallet.generate().address;
    const guarded = Wallet.generate().address;
    payXrp(sim, tagged, 5_000_000n);
    payXrp(sim, guarded, 5_000_000n);
    sim.close();
    sim.ledger.accounts.get(tagged)!.flags |= LSF_REQUIRE_DEST_TAG;
    sim.ledger.accounts.get(guarded)!.flags |= LSF_DEPOSIT_AUTH;
    sim.close();
    expect(await family.prepare(transfer(tagged, 2_000_000n), ctx)).toEqual({
      kind: 'refused', why: 'the destination account requires a destination tag (RequireDest) and the payout address has none', permanent: true,
    });
    expect((await family.prepare(transfer(tagged, 2_000_000n, 5), ctx)).kind).toBe('ready');
    expect(await family.prepare(transfer(guarded, 2_000_000n, 5), ctx)).toEqual({
      kind: 'refused', why: 'the destination account accepts payments only from senders it has preauthorized (DepositAuth), and the service address is not one of them', permanent: true,
    });
  });

  it('reads the result code of a transaction that failed in a validated ledger (its fee and sequence spent)', async () => {
    const to = Wallet.generate().address;
    payXrp(sim, to, 5_000_000n);
    sim.close();
    const s = await signed(transfer(to, 2_000_000n));
    // the destination starts requiring a tag after we signed: rippled applies the Payment as a failure
    sim.ledger.accounts.get(to)!.flags |= LSF_REQUIRE_DEST_TAG;
    expect(await family.broadcast(s.raw)).toEqual({ kind: 'accepted' });
    const l = sim.close();
    expect(await family.inclusion([s.txId])).toEqual({ txId: s.txId, block: BigInt(l.index), ok: false, feePaid: 10n, failure: 'tecDST_TAG_NEEDED' });
    expect(sim.ledger.accounts.get(to)!.balance).toBe(5_000_000n);
  });

  it('a transaction lost before any node took it is known lost past its LastLedgerSequence and signed again with the same sequence', async () => {
    const to = Wallet.generate().address;
    const lost = await signed(transfer(to, 3_000_000n));
    const last = attempt(lost);
    expect(family.expired(last, await family.tip())).toBe(false);
    for (let i = 0; i <= LEDGER_WINDOW; i++) sim.close();
    expect(family.expired(last, await family.tip())).toBe(true);
    // too late for the lost bytes: rippled refuses them, nothing is applied
    expect((await family.broadcast(lost.raw)).kind).toBe('refused');
    const again = await family.replace(transfer(to, 3_000_000n), last, ctx);
    expect(again).toMatchObject({ nonce: lost.nonce, value: 3_000_000n });
    expect(BigInt(again!.fee.fee)).toBeGreaterThan(BigInt(lost.fee.fee));
    expect(await family.broadcast(again!.raw)).toEqual({ kind: 'accepted' });
    sim.close();
    expect(await family.inclusion([lost.txId, again!.txId])).toMatchObject({ txId: again!.txId, ok: true });
    expect(sim.ledger.accounts.get(to)!.balance).toBe(3_000_000n);
  });

  it('quotes a settlement at the fee the open ledger asks (one Payment)', async () => {
    expect(await family.quoteSweepFee()).toBe(10n);
  });

  it('reads what submit answers', () => {
    expect(submitOutcome('tesSUCCESS', '')).toEqual({ kind: 'accepted' });
    expect(submitOutcome('terQUEUED', '').kind).toBe('accepted');
    expect(submitOutcome('tecNO_DST_INSUF_XRP', '').kind).toBe('accepted');
    expect(submitOutcome('tefPAST_SEQ', 'This sequence number has already passed.')).toEqual({ kind: 'nonce_used', why: 'rippled refused it: tefPAST_SEQ This sequence number has already passed.' });
    expect(submitOutcome('terINSUF_FEE_B', '').kind).toBe('no_funds');
    expect(submitOutcome('terPRE_SEQ', '').kind).toBe('uncertain');
    expect(submitOutcome('tefMAX_LEDGER', '').kind).toBe('refused');
    expect(submitOutcome('temBAD_SIGNATURE', '').kind).toBe('refused');
  });

  it('a refusal from rippled after a node that failed to answer is uncertain: that node may have taken the transaction', async () => {
    const dead = `ws://127.0.0.1:${await freePort()}`;
    const failover = new XrpRpc(new NodeEndpoints([dead, sim.wsUrl]), 2_000);
    try {
      const s = await signed(transfer(Wallet.generate().address, 2_000_000n));
      expect(await family.broadcast(s.raw)).toEqual({ kind: 'accepted' });
      // the same bytes again: rippled says their sequence is used, which only the first node could say for sure
      expect((await family.broadcast(s.raw)).kind).toBe('nonce_used');
      expect(await new XrpFamily(failover, keys).broadcast(s.raw)).toMatchObject({ kind: 'uncertain', why: expect.stringContaining(dead) });
    } finally {
      failover.close();
      sim.close();
    }
  });
});
