// The transfer port the settlement room uses (chains/transfers/intents.ts), on a real database: a
// reference whose transfer has a signed transaction (it may be on a node already) can no longer be
// called back, only one with nothing signed; an operator's retry revives failed transfers, never
// canceled ones (a failed settlement returned to the balance, or a rejected payout, sent after all would pay twice); and what the room
// reads as done is a final transfer, not one merely mined (a block can still be reorganised away).
import { beforeAll, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { describeEachDb } from '../harness/databases.ts';
import { uid } from '../harness/accounts.ts';
import { ADDR } from '../harness/settlement.ts';
import { ChainTransferPort, outgoingTransfers, recordTransfer, type TransferRow } from '../../src/chains/transfers/index.ts';
import { moveTransfer } from '../../src/chains/transfers/store.ts';
import type { TransferStatus } from '../../src/chains/transfers/types.ts';
import { WalletKeys } from '../../src/chains/wallets/keys.ts';

describeEachDb('transfer port', (h) => {
  let port: ChainTransferPort;
  let woken = 0;
  beforeAll(() => {
    port = new ChainTransferPort(new WalletKeys(generateMnemonic(wordlist)), () => new Set(['ethereum']), () => new Date(), () => { woken++; });
  });

  const db = () => h.db().orm;
  /** A transfer of `reference` moved to `status`. */
  async function transfer(reference: string, status: TransferStatus, set: Partial<TransferRow> = {}): Promise<TransferRow> {
    const now = new Date();
    const t = await recordTransfer(db(), {
      chain: 'ethereum', livemode: true, purpose: 'settlement', token: 'USDT_ERC20', fromAddress: ADDR.EVM, fromIndex: 3, fromRole: 'deposit',
      toAddress: ADDR.EVM_2, amount: 1_000n, reference,
    }, now);
    return status === 'recorded' && Object.keys(set).length === 0 ? t : (await moveTransfer(db(), t, 'recorded', { status, ...set }, now))!;
  }
  const statusOf = async (t: TransferRow) => (await db().select().from(outgoingTransfers).where(eq(outgoingTransfers.id, t.id)))[0].status;

  it.each(['signed', 'sent', 'mined', 'final'] as const)('a reference with a %s transfer cannot be called back: nothing of it is canceled', async (status) => {
    const reference = `stl_${uid()}`;
    const open = await transfer(reference, 'recorded');
    const out = await transfer(reference, status);
    expect(await h.db().transaction((tx) => port.cancel(tx, reference))).toBe(false);
    expect([await statusOf(open), await statusOf(out)]).toEqual(['recorded', status]);
  });

  it('a reference with nothing signed is called back: its recorded transfers are canceled, failed ones stay failed', async () => {
    const reference = `stl_${uid()}`;
    const open = await transfer(reference, 'recorded');
    const failed = await transfer(reference, 'failed');
    expect(await h.db().transaction((tx) => port.cancel(tx, reference))).toBe(true);
    expect([await statusOf(open), await statusOf(failed)]).toEqual(['canceled', 'failed']);
  });

  it('one transfer of a reference (only) is called back on its own when nothing is signed for it, whatever its others are; never one signed', async () => {
    const reference = `stl_${uid()}`;
    // a treasury conversion: its sweep final, its payout recorded (waiting for the hot wallet's funds)
    const sweep = await transfer(reference, 'final', { txId: '0xsweep' });
    const payout = await transfer(reference, 'recorded', { waiting: 'funds', lastError: 'the hot wallet holds 0 wei' });
    expect(await h.db().transaction((tx) => port.cancel(tx, reference))).toBe(false);
    expect(await h.db().transaction((tx) => port.cancel(tx, reference, payout.id))).toBe(true);
    expect([await statusOf(sweep), await statusOf(payout)]).toEqual(['final', 'canceled']);
    expect(await h.db().transaction((tx) => port.state(tx, payout.id))).toEqual({ status: 'failed', waiting_funds: false, why: 'canceled' });
    // signed (refused at a broadcast that may have reached a node, waiting for funds): it stays
    const signed = await transfer(reference, 'signed', { waiting: 'funds', uncertain: true });
    expect(await h.db().transaction((tx) => port.cancel(tx, reference, signed.id))).toBe(false);
    expect(await statusOf(signed)).toBe('signed');
    // a transfer of another reference, or none: nothing is called back
    const other = await transfer(`stl_${uid()}`, 'recorded');
    expect(await h.db().transaction((tx) => port.cancel(tx, reference, other.id))).toBe(false);
    expect(await h.db().transaction((tx) => port.cancel(tx, reference, 'trf_nope'))).toBe(false);
    expect(await statusOf(other)).toBe('recorded');
  });

  it('a retry revives the failed transfers of a reference, never its canceled ones, and wakes the worker', async () => {
    const reference = `stl_${uid()}`;
    const failed = await transfer(reference, 'failed', { failures: 5, lastError: 'reverted' });
    const canceled = await transfer(reference, 'canceled');
    const before = woken;
    expect(await h.db().transaction((tx) => port.retry(tx, reference))).toBe(1);
    expect(woken).toBe(before + 1);
    const [revived] = await db().select().from(outgoingTransfers).where(eq(outgoingTransfers.id, failed.id));
    expect(revived).toMatchObject({ status: 'recorded', failures: 0, lastError: null, nonce: null });
    expect(await statusOf(canceled)).toBe('canceled');
  });

  it('state: final only once final (mined is still pending), failed for given up or canceled, waiting for funds as the worker left it', async () => {
    const reference = `stl_${uid()}`;
    const state = async (t: TransferRow) => h.db().transaction((tx) => port.state(tx, t.id));
    expect(await state(await transfer(reference, 'mined', { txId: '0xm' }))).toEqual({ status: 'pending', waiting_funds: false, tx_id: '0xm' });
    expect(await state(await transfer(reference, 'final', { txId: '0xf' }))).toEqual({ status: 'final', waiting_funds: false, tx_id: '0xf' });
    expect(await state(await transfer(reference, 'failed', { lastError: 'reverted' }))).toEqual({ status: 'failed', waiting_funds: false, why: 'reverted' });
    expect((await state(await transfer(reference, 'canceled')))?.status).toBe('failed');
    expect(await state(await transfer(reference, 'recorded', { waiting: 'funds', lastError: 'the hot wallet holds 0 wei' })))
      .toEqual({ status: 'pending', waiting_funds: true, why: 'the hot wallet holds 0 wei' });
    expect(await state(await transfer(reference, 'signed', { waiting: 'funds', uncertain: true, lastError: 'insufficient funds' })))
      .toEqual({ status: 'pending', waiting_funds: true, why: 'insufficient funds' });
    expect(await h.db().transaction((tx) => port.state(tx, 'trf_nope'))).toBeNull();
  });
});
