// Live LTC payments on a real Litecoin node (regtest) found by the chain watcher through the UTXO
// reader, nothing reported by hand: seen in the mempool (`detecting`, 0 confirmations), counted
// block by block, `confirmed` at CONFIRMATIONS_LITECOIN (2 here), settled in one transaction whose
// output to the merchant is exactly `net`; a payment in two parts; a block taken away
// (invalidateblock) and a double spend; a deposit made while the gateway was stopped; the node
// restarting mid-watch; a node of another coin (CONTRACT.md "Live chains", issue 14).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { describeEachDb } from '../harness/databases.ts';
import { getPayment, type Json } from '../harness/payments.ts';
import { ADMIN, createLivePayment, owed, settlementsOf } from '../harness/chain-send.ts';
import { litecoindOrSkip, startLitecoind, type LitecoinNode } from '../harness/litecoind.ts';
import { chainRow, driveLtc, ltcMerchant, ltcText, receivedBy, startLtcApp, watchLtc, type LtcApp } from '../harness/utxo-send.ts';
import { parseUnits } from '../../src/money/index.ts';
import { setLiveNetwork } from '../../src/chains/addresses/index.ts';
import pino from 'pino';
import { NOTE_SMALLER_THAN_FEES } from '../../src/settlement/plan.ts';

const units = (v: string) => parseUnits(v, 8)!;

describe.runIf(litecoindOrSkip())('the chain watcher on litecoind', () => {
  let node: LitecoinNode;
  beforeAll(async () => { node = await startLitecoind(); }, 60_000);
  afterAll(async () => { await node?.close(); setLiveNetwork('litecoin', 'main'); });

  describeEachDb('live LTC payments', (h) => {
    const mnemonic = generateMnemonic(wordlist);
    let t: LtcApp;
    beforeAll(async () => {
      t = await startLtcApp(h.db(), node, { WALLET_MNEMONIC: mnemonic });
      await watchLtc(t);
    });
    afterAll(async () => { await t?.close(); });
    const now = (m: { acct: { liveKey: string } }, id: string): Promise<Json> => getPayment(t.app, m.acct.liveKey, id);
    // Trail deposits carry sender (spec 2 Deposit object): the address the first input spends.
    const senderOf = async (txid: string): Promise<string> => {
      type Tx = { vin: Array<{ txid: string; vout: number }>; vout: Array<{ n: number; scriptPubKey: { addresses?: string[]; address?: string } }> };
      const tx = await node.rpc<Tx>('getrawtransaction', [txid, true]);
      const prev = await node.rpc<Tx>('getrawtransaction', [tx.vin[0].txid, true]);
      const spk = prev.vout.find((v) => v.n === tx.vin[0].vout)!.scriptPubKey;
      return spk.address ?? spk.addresses![0];
    };
    const trailDeposits = async (m: { acct: { merchant: { id: string } } }, id: string): Promise<Json[]> =>
      ((await t.services.payments.trail(m.acct.merchant.id, id)) as { deposits: Json[] }).deposits;

    it('mempool → detecting at 0, confirmed at 2, settled: the payout address receives exactly net', async () => {
      const m = await ltcMerchant(t);
      const p = await createLivePayment(t, m, 'LTC');
      const amount = owed(p);
      const txid = await node.pay(p.deposit_address, ltcText(amount));
      await watchLtc(t);
      expect(await now(m, p.id)).toMatchObject({ status: 'detecting', confirmations: 0 });
      expect((await now(m, p.id)).deposits).toEqual([expect.objectContaining({ tx_id: txid, confirmations: 0, status: 'pending' })]);
      expect(await trailDeposits(m, p.id)).toEqual([expect.objectContaining({ tx_id: txid, sender: await senderOf(txid) })]);
      await node.mine(1);
      await watchLtc(t);
      expect(await now(m, p.id)).toMatchObject({ status: 'detecting', confirmations: 1 });
      await node.mine(1);
      await watchLtc(t);
      expect((await now(m, p.id)).status).toBe('confirmed');

      await driveLtc(t, async () => { await watchLtc(t); return (await settlementsOf(t, p.id))[0]?.status === 'completed'; });
      const [s] = await settlementsOf(t, p.id);
      expect(await receivedBy(node, m.payout)).toBe(units(s.net));
      // the settlement's own transaction pays no deposit
      await node.mine(1);
      await watchLtc(t);
      expect((await now(m, p.id)).deposits).toHaveLength(1);
    });

    it('a payment in two parts is confirmed and settled in one transaction', async () => {
      const m = await ltcMerchant(t);
      const p = await createLivePayment(t, m, 'LTC');
      const amount = owed(p);
      const a = await node.pay(p.deposit_address, ltcText(amount / 2n));
      const b = await node.pay(p.deposit_address, ltcText(amount - amount / 2n));
      await node.mine(2);
      await watchLtc(t);
      expect((await now(m, p.id)).status).toBe('confirmed');
      await driveLtc(t, async () => { await watchLtc(t); return (await settlementsOf(t, p.id))[0]?.status === 'completed'; });
      const all = await settlementsOf(t, p.id);
      expect(all).toHaveLength(1);
      const tx = await node.rpc<{ vin: Array<{ txid: string }> }>('getrawtransaction', [all[0].tx_id, true]);
      expect(tx.vin.map((v) => v.txid).sort()).toEqual([a, b].sort());
      expect(await receivedBy(node, m.payout)).toBe(units(all[0].net));
    });

    it('a dust deposit after the payment is recorded and its settlement held with a note; the rest settles as usual', async () => {
      const m = await ltcMerchant(t);
      const p = await createLivePayment(t, m, 'LTC');
      await node.pay(p.deposit_address, ltcText(owed(p)));
      await node.mine(2);
      await watchLtc(t);
      expect((await now(m, p.id)).status).toBe('confirmed');
      const dust = await node.pay(p.deposit_address, '0.0001');
      await node.mine(2);
      await driveLtc(t, async () => {
        await watchLtc(t);
        const all = await settlementsOf(t, p.id);
        return all.length === 2 && all.every((s) => s.status !== 'pending');
      });
      const deposits = (await now(m, p.id)).deposits as Json[];
      expect(deposits.find((d) => d.tx_id === dust)).toMatchObject({ amount: '0.0001', status: 'final' });
      const all = await settlementsOf(t, p.id);
      const held = all.find((s) => s.amount === '0.0001');
      expect(held).toMatchObject({ status: 'held', note: NOTE_SMALLER_THAN_FEES });
      const main = all.find((s) => s !== held)!;
      expect(main.status).toBe('completed');
      expect(await receivedBy(node, m.payout)).toBe(units(main.net));
    });

    it('invalidateblock: the deposit drops to 0 confirmations and counts again once mined in the new branch', async () => {
      const m = await ltcMerchant(t);
      const p = await createLivePayment(t, m, 'LTC');
      const txid = await node.pay(p.deposit_address, ltcText(owed(p)));
      const [block] = await node.mine(1);
      await watchLtc(t);
      expect(await now(m, p.id)).toMatchObject({ status: 'detecting', confirmations: 1 });
      await node.rpc('invalidateblock', [block]);
      await watchLtc(t);
      const back = await now(m, p.id);
      expect(back).toMatchObject({ status: 'detecting', confirmations: 0 });
      expect(back.deposits[0]).toMatchObject({ tx_id: txid, confirmations: 0 });
      await node.mine(2);
      await watchLtc(t);
      expect(await now(m, p.id)).toMatchObject({ status: 'confirmed' });
    });

    it('a double spend replacing the deposit in the mempool: the deposit never counts and fails', async () => {
      const m = await ltcMerchant(t);
      const p = await createLivePayment(t, m, 'LTC');
      const txid = await node.rpc<string>('sendtoaddress', [p.deposit_address, ltcText(owed(p)), '', '', false, true], 'miner');
      await watchLtc(t);
      expect(await now(m, p.id)).toMatchObject({ status: 'detecting', confirmations: 0 });
      // the customer spends the same coins back to themselves with a higher fee (BIP-125)
      const orig = await node.rpc<{ vin: Array<{ txid: string; vout: number }> }>('getrawtransaction', [txid, true]);
      const inputs = orig.vin.map((v) => ({ txid: v.txid, vout: v.vout }));
      const prevValue = async (i: { txid: string; vout: number }) => (await node.rpc<{ vout: Array<{ value: number; n: number }> }>('getrawtransaction', [i.txid, true])).vout.find((o) => o.n === i.vout)!.value;
      const total = (await Promise.all(inputs.map(prevValue))).reduce((x, y) => x + y, 0);
      const raw = await node.rpc<string>('createrawtransaction', [inputs, { [await node.minerAddress()]: Number((total - 0.01).toFixed(8)) }, 0, true]);
      const signed = await node.rpc<{ hex: string }>('signrawtransactionwithwallet', [raw], 'miner');
      await node.rpc('sendrawtransaction', [signed.hex]);
      await node.mine(1);
      await watchLtc(t);
      const after = await now(m, p.id);
      expect(after.deposits[0]).toMatchObject({ tx_id: txid, status: 'failed' });
      expect(after.status).not.toBe('confirmed');
    });

    it('replaced by fee in our mempool, but the original is what gets mined: the original counts, the replacement fails, one settlement', async () => {
      const m = await ltcMerchant(t);
      const p = await createLivePayment(t, m, 'LTC');
      const txid = await node.rpc<string>('sendtoaddress', [p.deposit_address, ltcText(owed(p)), '', '', false, true], 'miner');
      const original = await node.rpc<string>('getrawtransaction', [txid, false]);
      await watchLtc(t);
      // bumpfee pays the same deposit address: the payment follows the replacement, never counts both
      const { txid: bumped } = await node.rpc<{ txid: string }>('bumpfee', [txid], 'miner');
      await watchLtc(t);
      const replaced = await now(m, p.id);
      expect(replaced.status).toBe('detecting');
      expect(units(replaced.received_amount)).toBe(owed(p));
      expect(replaced.deposits).toEqual(expect.arrayContaining([
        expect.objectContaining({ tx_id: txid, status: 'failed', counted: false }),
        expect.objectContaining({ tx_id: bumped, status: 'pending', counted: true }),
      ]));
      // another miner never saw the replacement and mines the original (our node drops the replacement)
      await node.rpc('generateblock', [await node.minerAddress(), [original]]);
      await node.mine(1);
      await watchLtc(t);
      const after = await now(m, p.id);
      expect(after.status).toBe('confirmed');
      expect(units(after.received_amount)).toBe(owed(p));
      expect(after.deposits).toEqual(expect.arrayContaining([
        expect.objectContaining({ tx_id: txid, status: 'final', counted: true, confirmations: 2 }),
        expect.objectContaining({ tx_id: bumped, status: 'failed', counted: false }),
      ]));
      await driveLtc(t, async () => { await watchLtc(t); return (await settlementsOf(t, p.id))[0]?.status === 'completed'; });
      const all = await settlementsOf(t, p.id);
      expect(all).toHaveLength(1);
      expect(await receivedBy(node, m.payout)).toBe(units(all[0].net));
    });

    it('a deposit made while the gateway was stopped is found after its restart', async () => {
      const m = await ltcMerchant(t);
      const p = await createLivePayment(t, m, 'LTC');
      await t.close();
      const txid = await node.pay(p.deposit_address, ltcText(owed(p)));
      await node.mine(3);
      t = await startLtcApp(h.db(), node, { WALLET_MNEMONIC: mnemonic });
      await watchLtc(t);
      expect(await now(m, p.id)).toMatchObject({ status: 'confirmed' });
      // found in a block (never in the mempool): its sender too
      expect(await trailDeposits(m, p.id)).toEqual([expect.objectContaining({ tx_id: txid, block: expect.any(Number), sender: await senderOf(txid) })]);
    });

    it('the node restarting mid-watch: the chain is down meanwhile, then a payment made after is found', async () => {
      const m = await ltcMerchant(t);
      const p = await createLivePayment(t, m, 'LTC');
      await node.stop();
      try {
        await watchLtc(t);
        expect(await chainRow(t, 'litecoin')).toMatchObject({ status: 'down' });
        expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      } finally {
        await node.start();
      }
      await node.pay(p.deposit_address, ltcText(owed(p)));
      await node.mine(2);
      await watchLtc(t);
      expect(await now(m, p.id)).toMatchObject({ status: 'confirmed' });
      expect((await chainRow(t, 'litecoin')).status).not.toBe('down');
    });

    it('a transfer to a payment closed more than 24 h ago is unmatched once mined, with its block, not from the mempool', async () => {
      // (last of the block: the clock moves a day on)
      const m = await ltcMerchant(t);
      const p = await createLivePayment(t, m, 'LTC');
      t.clock.advance(16 * 60 * 1000);
      await t.services.payments.timers.runDue(t.clock.now());
      t.clock.advance(25 * 60 * 60 * 1000);
      // seen in the mempool first: not a transfer yet (it may never be mined)
      const txid = await node.pay(p.deposit_address, '0.05');
      await watchLtc(t);
      const mine = async (id: string) => ((await t.app.inject({ method: 'GET', url: '/admin/unmatched-deposits?chain=litecoin', headers: ADMIN })).json().deposits as Json[])
        .filter((d) => d.tx_id === id);
      expect(await mine(txid)).toEqual([]);
      const [hash] = await node.mine(1);
      const { height } = await node.rpc<{ height: number }>('getblockheader', [hash]);
      await watchLtc(t);
      expect(await mine(txid)).toEqual([expect.objectContaining({ address: p.deposit_address, amount: '0.05', block: height })]);
      expect((await now(m, p.id)).deposits).toEqual([]);
    });
  });

  describeEachDb('a node of another coin', (h) => {
    it('BITCOIN_RPC_URL on a Litecoin node: bitcoin is down with one log line, litecoin keeps working', async () => {
      const lines: string[] = [];
      const log = pino({ level: 'warn' }, { write: (line: string) => { lines.push(line); } });
      const t = await startLtcApp(h.db(), node, { BITCOIN_RPC_URL: node.url }, { log });
      try {
        await watchLtc(t);
        await watchLtc(t);
        expect(await chainRow(t, 'bitcoin')).toMatchObject({ status: 'down', last_error: expect.stringContaining('is not a bitcoin node') });
        expect((await chainRow(t, 'litecoin')).status).not.toBe('down');
        expect(lines.filter((l) => l.includes('is not a bitcoin node'))).toHaveLength(1);
      } finally {
        await t.close();
      }
    });
  });
});
