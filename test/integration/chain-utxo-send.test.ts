// Direct settlement of live LTC deposits on a real Litecoin node (regtest): the deposit is reported
// through DepositIntake as the chain watcher does, the settlement room plans it, and the UTXO family
// sends ONE transaction spending the deposit outputs: the merchant's payout address receives exactly
// `net`, the service's hot wallet its share less the network fee, which is the transaction's fee.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { getPayment, type Json } from '../harness/payments.ts';
import { createLivePayment, hotWallet, owed, settlementsOf } from '../harness/chain-send.ts';
import { litecoindOrSkip, startLitecoind, type LitecoinNode } from '../harness/litecoind.ts';
import { driveLtc, ltcMerchant, ltcText, payAndReportLtc, receivedBy, startLtcApp, unspentAt, type LtcApp } from '../harness/utxo-send.ts';
import { encodeSegwit } from '../../src/chains/addresses/encoding.ts';
import { parseUnits } from '../../src/money/index.ts';
import { outgoingAttempts, outgoingTransfers } from '../../src/chains/transfers/index.ts';
import { setLiveNetwork } from '../../src/chains/addresses/index.ts';
import { ledgerEntries } from '../../src/settlement/index.ts';
import { dec } from '../../src/money/index.ts';
import type { Database } from '../../src/platform/db/index.ts';

const units = (v: string) => parseUnits(v, 8)!;
const coinUnits = (v: number) => units(v.toFixed(8));

/** What a transaction paid the network, from the node: its inputs' previous outputs less its outputs. */
async function nodeFee(node: LitecoinNode, txid: string): Promise<bigint> {
  type Tx = { vin: Array<{ txid: string; vout: number }>; vout: Array<{ n: number; value: number }> };
  const tx = await node.rpc<Tx>('getrawtransaction', [txid, true]);
  let fee = 0n;
  for (const i of tx.vin) fee += coinUnits((await node.rpc<Tx>('getrawtransaction', [i.txid, true])).vout.find((o) => o.n === i.vout)!.value);
  for (const o of tx.vout) fee -= coinUnits(o.value);
  return fee;
}

/** The settlement's figures add up exactly, and its ledger debits are its fees. */
async function figuresAddUp(db: Database, s: Json): Promise<void> {
  expect(units(s.net) + units(s.service_fee) + units(s.network_fee) + units(s.conversion_fee)).toBe(units(s.amount));
  const entries = await db.orm.select().from(ledgerEntries).where(eq(ledgerEntries.paymentId, s.payment_id));
  const sum = (type: string) => entries.filter((e) => e.type === type).reduce((a, e) => a + e.amount, 0n);
  expect([sum('network_fee'), sum('fee')]).toEqual([-units(s.network_fee), -units(s.service_fee)]);
  const usd = (type: string) => entries.filter((e) => e.type === type).reduce((a, e) => a.plus(e.usdAmount), dec(0));
  expect([usd('network_fee').neg().toString(), usd('fee').neg().toString()]).toEqual([dec(s.network_fee_usd).toString(), dec(s.service_fee_usd).toString()]);
}

describe.runIf(litecoindOrSkip())('LTC direct settlement on litecoind', () => {
  let node: LitecoinNode;
  beforeAll(async () => { node = await startLitecoind(); }, 60_000);
  afterAll(async () => { await node?.close(); setLiveNetwork('litecoin', 'main'); });

  describeEachDb('one transaction per settlement', (h) => {
    let t: LtcApp;
    beforeAll(async () => { t = await startLtcApp(h.db(), node); });
    afterAll(async () => { await t?.close(); });

    const payAndReport = (address: string, amount: bigint, final = true) => payAndReportLtc(t, node, address, amount, final);
    const transfersOf = (reference: string) => h.db().orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.reference, reference));
    const settled = async (paymentId: string): Promise<Json> => {
      await driveLtc(t, async () => (await settlementsOf(t, paymentId))[0]?.status === 'completed');
      return (await settlementsOf(t, paymentId))[0];
    };

    it('gives regtest deposit and hot-wallet addresses', async () => {
      const m = await ltcMerchant(t);
      const p = await createLivePayment(t, m, 'LTC');
      expect(p.deposit_address).toMatch(/^rltc1q/);
      expect((await hotWallet(t, 'litecoin')).address).toMatch(/^rltc1q/);
    });

    it('settles in one transaction: the payout address receives exactly net, the hot wallet the share less the fee', async () => {
      const m = await ltcMerchant(t);
      const p = await createLivePayment(t, m, 'LTC');
      const amount = owed(p);
      const deposit = await payAndReport(p.deposit_address, amount);
      const s = await settled(p.id);
      expect(s).toMatchObject({ status: 'completed', mode: 'direct', token: 'LTC' });
      const net = units(s.net);
      expect(await receivedBy(node, m.payout)).toBe(net);

      const rows = await transfersOf(s.id);
      expect(rows.map((r) => [r.purpose, r.status]).sort()).toEqual([['service_fee', 'final'], ['settlement', 'final']]);
      // both transfers are the same transaction, which spends exactly the deposit's output
      expect(new Set(rows.map((r) => r.txId))).toEqual(new Set([s.tx_id]));
      const tx = await node.rpc<{ vin: Array<{ txid: string }>; vout: Array<{ value: number; scriptPubKey: { addresses: string[] } }> }>('getrawtransaction', [s.tx_id, true]);
      expect(tx.vin.map((v) => v.txid)).toEqual([deposit]);
      const hot = (await hotWallet(t, 'litecoin')).address;
      const toHot = tx.vout.filter((o) => o.scriptPubKey.addresses?.[0] === hot).reduce((a, o) => a + units(o.value.toFixed(8)), 0n);
      const fee = rows.find((r) => r.purpose === 'settlement')!.minedFee!;
      expect(fee).toBeGreaterThan(0n);
      // inputs = outputs + fee: the share went to the service, less what the network took
      expect(net + toHot + fee).toBe(amount);
      expect(toHot).toBe(units(s.service_fee) + units(s.network_fee) - fee);
      // the settlement's network fee is what the transaction really cost, as the node counts it
      expect(units(s.network_fee)).toBe(await nodeFee(node, s.tx_id));
      expect(units(s.network_fee)).toBe(fee);
      await figuresAddUp(h.db(), s);
      expect((await getPayment(t.app, m.acct.liveKey, p.id)).status).toBe('confirmed');
    });

    it('settles to a future witness version payout address (BIP-350, rltc1z…): a witness_unknown output of exactly net', async () => {
      const program = crypto.randomBytes(32);
      const m = await ltcMerchant(t, encodeSegwit('rltc', 2, program).toUpperCase());
      const p = await createLivePayment(t, m, 'LTC');
      await payAndReport(p.deposit_address, owed(p));
      const s = await settled(p.id);
      type Out = { value: number; scriptPubKey: { hex: string; type: string } };
      const tx = await node.rpc<{ vout: Out[] }>('getrawtransaction', [s.tx_id, true]);
      const toMerchant = tx.vout.filter((o) => o.scriptPubKey.hex === `5220${program.toString('hex')}`);
      expect(toMerchant.map((o) => [o.scriptPubKey.type, units(o.value.toFixed(8))])).toEqual([['witness_unknown', units(s.net)]]);
      await figuresAddUp(h.db(), s);
    });

    it('a payment paid in two parts is settled once, in one transaction spending both deposits', async () => {
      const m = await ltcMerchant(t);
      const p = await createLivePayment(t, m, 'LTC');
      const amount = owed(p);
      const first = amount * 2n / 5n;
      const a = await payAndReport(p.deposit_address, first, false);
      const b = await payAndReport(p.deposit_address, amount - first, false);
      await t.services.payments.intake.markFinal({ address: p.deposit_address }, a, t.clock.now());
      await t.services.payments.intake.markFinal({ address: p.deposit_address }, b, t.clock.now());
      await t.platform.outbox.drainNow();
      const s = await settled(p.id);
      expect((await settlementsOf(t, p.id)).length).toBe(1);
      expect(await receivedBy(node, m.payout)).toBe(units(s.net));
      const tx = await node.rpc<{ vin: Array<{ txid: string }> }>('getrawtransaction', [s.tx_id, true]);
      expect(tx.vin.map((v) => v.txid).sort()).toEqual([a, b].sort());
    });

    it('records what it spends before broadcasting: the stored bytes are the transaction on chain', async () => {
      const m = await ltcMerchant(t);
      const p = await createLivePayment(t, m, 'LTC');
      await payAndReport(p.deposit_address, owed(p));
      const s = await settled(p.id);
      const [settlement] = (await transfersOf(s.id)).filter((r) => r.purpose === 'settlement');
      const attempts = await h.db().orm.select().from(outgoingAttempts).where(eq(outgoingAttempts.transferId, settlement.id));
      expect(attempts).toHaveLength(1);
      expect(attempts[0].txId).toBe(s.tx_id);
      expect(await node.rpc<string>('getrawtransaction', [s.tx_id, false])).toBe(attempts[0].raw);
      expect(JSON.parse((attempts[0].fee as Record<string, string>).inputs)).toHaveLength(1);
    });
  });
});

describe.runIf(litecoindOrSkip())('LTC settlement left unmined', () => {
  let node: LitecoinNode;
  beforeAll(async () => { node = await startLitecoind(); }, 60_000);
  afterAll(async () => { await node?.close(); setLiveNetwork('litecoin', 'main'); });

  describeEachDb('replaced with a higher fee, never paid twice', (h) => {
    let t: LtcApp;
    beforeAll(async () => { t = await startLtcApp(h.db(), node); });
    afterAll(async () => { await t?.close(); });

    it('a stuck settlement is replaced (same inputs, higher fee); one of them is mined; the merchant is paid net once', async () => {
      const m = await ltcMerchant(t);
      const p = await createLivePayment(t, m, 'LTC');
      const amount = owed(p);
      await payAndReportLtc(t, node, p.deposit_address, amount);
      // signed and sent, not mined
      await t.services.sending.transfers.runOnce();
      const [s0] = await settlementsOf(t, p.id);
      const [settlement] = (await h.db().orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.reference, s0.id))).filter((r) => r.purpose === 'settlement');
      expect(settlement.status).toBe('sent');
      const first = (await h.db().orm.select().from(outgoingAttempts).where(eq(outgoingAttempts.transferId, settlement.id)).orderBy(outgoingAttempts.n))[0];
      expect(await node.rpc<string[]>('getrawmempool')).toContain(first.txId);

      // three Litecoin blocks' time without a block: replaced
      t.clock.advance(3 * 150_000 + 1000);
      await t.services.sending.transfers.runOnce();
      const attempts = await h.db().orm.select().from(outgoingAttempts).where(eq(outgoingAttempts.transferId, settlement.id)).orderBy(outgoingAttempts.n);
      expect(attempts).toHaveLength(2);
      const [a, b] = attempts.map((x) => x.fee as Record<string, string>);
      expect(BigInt(b.fee)).toBeGreaterThan(BigInt(a.fee));
      expect(b.inputs).toBe(a.inputs);
      const pool = await node.rpc<string[]>('getrawmempool');
      expect(pool).toContain(attempts[1].txId);
      expect(pool).not.toContain(attempts[0].txId);

      await driveLtc(t, async () => (await settlementsOf(t, p.id))[0]?.status === 'completed');
      const [s] = await settlementsOf(t, p.id);
      expect(s.tx_id).toBe(attempts[1].txId);
      expect(await receivedBy(node, m.payout)).toBe(units(s.net));
      // the bumped fee is the one recorded
      expect(units(s.network_fee)).toBe(await nodeFee(node, s.tx_id));
      expect(units(s.network_fee)).toBe(BigInt(b.fee));
      await figuresAddUp(h.db(), s);
    });

    it('the gateway stops after sending and the node loses its mempool: the same bytes are sent again, paid once', async () => {
      // a payout address outside the node's wallet, which would put the transaction back itself
      const m = await ltcMerchant(t, encodeSegwit('rltc', 0, crypto.randomBytes(20)));
      const p = await createLivePayment(t, m, 'LTC');
      const amount = owed(p);
      await payAndReportLtc(t, node, p.deposit_address, amount);
      await t.services.sending.transfers.runOnce();
      const [s0] = await settlementsOf(t, p.id);
      const [settlement] = (await h.db().orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.reference, s0.id))).filter((r) => r.purpose === 'settlement');
      expect(settlement.status).toBe('sent');
      const [sent] = await h.db().orm.select().from(outgoingAttempts).where(eq(outgoingAttempts.transferId, settlement.id)).orderBy(outgoingAttempts.n);

      // the gateway goes away; the node restarts without the mempool it had
      const mnemonic = t.config.walletMnemonic;
      await t.close();
      const { logpath } = await node.rpc<{ logpath: string }>('getrpcinfo');
      await node.stop();
      fs.rmSync(path.join(path.dirname(logpath), 'mempool.dat'), { force: true });
      await node.start();
      expect(await node.rpc<string[]>('getrawmempool')).not.toContain(sent.txId);

      t = await startLtcApp(h.db(), node, { WALLET_MNEMONIC: mnemonic });
      // three Litecoin blocks' time after the broadcast (stamped by the first gateway's clock)
      t.clock.advance(sent.broadcastAt!.getTime() - t.clock.now().getTime() + 3 * 150_000 + 1000);
      await t.services.sending.transfers.runOnce();
      expect(await node.rpc<string[]>('getrawmempool')).toContain(sent.txId);
      await driveLtc(t, async () => (await settlementsOf(t, p.id))[0]?.status === 'completed');
      const [s] = await settlementsOf(t, p.id);
      expect(s.tx_id).toBe(sent.txId);
      expect(await h.db().orm.select().from(outgoingAttempts).where(eq(outgoingAttempts.transferId, settlement.id))).toHaveLength(1);
      expect(await unspentAt(node, m.payout)).toBe(units(s.net));
    });
  });
});
