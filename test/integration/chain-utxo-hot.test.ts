// The Litecoin hot wallet on a real node (regtest), with no node wallet behind it: custodial
// deposits swept into it (all of the deposit less the fee), transfers from it (`payout`: the
// recipient receives exactly the amount, the change goes back to it) over the outputs the service
// tracks itself, each output reserved in the transaction that stores the signed bytes spending it.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, inArray } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { tokenHeader } from '../harness/accounts.ts';
import { createLivePayment, hotWallet, owed, settlementsOf } from '../harness/chain-send.ts';
import { litecoindOrSkip, startLitecoind, type LitecoinNode } from '../harness/litecoind.ts';
import { driveLtc, ltcMerchant, payAndReportLtc, startLtcApp, unspentAt, type LtcApp } from '../harness/utxo-send.ts';
import { encodeSegwit } from '../../src/chains/addresses/encoding.ts';
import { setLiveNetwork } from '../../src/chains/addresses/index.ts';
import { parseUnits } from '../../src/money/index.ts';
import { NOTE_INPUTS_TAKEN, outgoingAttempts, outgoingTransfers, type TransferRow } from '../../src/chains/transfers/index.ts';
import { NodeEndpoints } from '../../src/chains/rpc/endpoints.ts';
import { UtxoReader, UtxoRpc, scriptOfAddress } from '../../src/chains/utxo/index.ts';
import { UTXO_COINS } from '../../src/chains/utxo/coins.ts';
import { signSpend } from '../../src/chains/utxo/send/sign.ts';
import { UTXO_NETWORKS } from '../../src/chains/addresses/networks.ts';
import { HotOutputs, UtxoFamily, depositTxsFromDb, utxoHotOutputs } from '../../src/chains/utxo/send/index.ts';
import { networkMoved } from '../../src/chains/utxo/send/family.ts';
import { rawTransactions } from '../../src/chains/utxo/send/raw-transactions.ts';
import { RpcError } from '../../src/chains/rpc/json-rpc.ts';
import { WalletKeys } from '../../src/chains/wallets/index.ts';
import { freePort } from '../harness/process.ts';
import { startRpcProxy } from '../harness/rpc-proxy.ts';
import { unmatchedDeposits } from '../../src/chains/watch/index.ts';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';

const units = (v: string) => parseUnits(v, 8)!;
const fresh = () => encodeSegwit('rltc', 0, crypto.randomBytes(20));

describe.runIf(litecoindOrSkip())('LTC hot wallet on litecoind', () => {
  let node: LitecoinNode;
  beforeAll(async () => { node = await startLitecoind(); }, 60_000);
  afterAll(async () => { await node?.close(); setLiveNetwork('litecoin', 'main'); });

  describeEachDb('sweeps into it, transfers from it', (h) => {
    let t: LtcApp;
    let hot: string;
    beforeAll(async () => {
      t = await startLtcApp(h.db(), node);
      hot = (await hotWallet(t, 'litecoin')).address as string;
    });
    afterAll(async () => { await t?.close(); });

    const transfersOf = (reference: string) => h.db().orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.reference, reference));
    const tracked = () => h.db().orm.select().from(utxoHotOutputs).where(eq(utxoHotOutputs.chain, 'litecoin'));
    /** Records a transfer from the hot wallet through the TransferPort, as the settlement room (a conversion) does. */
    const sendFromHot = (to: string, amount: bigint, reference = `ref_${crypto.randomUUID()}`) =>
      t.platform.db.transaction((tx) => t.services.sending.transfers.port.send(tx, { chain: 'litecoin', token: 'LTC', to, amount, purpose: 'payout', reference }));
    const rowOf = async (id: string): Promise<TransferRow> => (await h.db().orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.id, id)))[0];
    /**
     * The operator spends an output of the hot wallet from a wallet restored from the mnemonic, to
     * an address of their own, with a fee (0.001 LTC) above any of the service's: it replaces a
     * transaction of ours spending the same output in litecoind's mempool (BIP-125).
     */
    const operatorSpends = async (o: { txid: string; vout: number }) => {
      const prev = await node.rpc<{ vout: Array<{ n: number; value: number }> }>('getrawtransaction', [o.txid, true]);
      const value = units(prev.vout.find((v) => v.n === o.vout)!.value.toFixed(8));
      const regtest = UTXO_NETWORKS.litecoin.regtest;
      const spend = await signSpend(UTXO_COINS.litecoin, [{ ...o, amount: value, script: scriptOfAddress(regtest, hot)! }],
        [{ script: scriptOfAddress(regtest, fresh())!, amount: value - 100_000n }], new WalletKeys(t.config.walletMnemonic).hotPrivateKey('litecoin', true));
      await node.rpc('sendrawtransaction', [spend.raw]);
    };
    const balance = async () => {
      t.clock.advance(61_000); // past the balances' cache and the UTXO set scan's interval
      return units(((await hotWallet(t, 'litecoin')).balances as Array<{ token: string; amount: string }>).find((b) => b.token === 'LTC')!.amount);
    };

    it('a custodial deposit is swept into the hot wallet whole, less the fee, and its output is tracked', async () => {
      const m = await ltcMerchant(t);
      const set = await t.app.inject({ method: 'PATCH', url: '/merchant/settings', headers: tokenHeader(m.acct.accessToken), payload: { settlement: 'custodial' } });
      expect(set.statusCode).toBe(200);
      const p = await createLivePayment(t, m, 'LTC');
      const amount = owed(p);
      const txid = await payAndReportLtc(t, node, p.deposit_address, amount);
      const [s] = await settlementsOf(t, p.id);
      expect(s).toMatchObject({ mode: 'custodial', status: 'completed' });
      await driveLtc(t, async () => (await transfersOf(s.id)).every((x) => x.status === 'final'));
      const [sweep] = await transfersOf(s.id);
      expect(sweep).toMatchObject({ purpose: 'sweep', amount, toAddress: hot });
      const tx = await node.rpc<{ vin: Array<{ txid: string }>; vout: Array<{ value: number; n: number; scriptPubKey: { addresses: string[] } }> }>('getrawtransaction', [sweep.txId, true]);
      expect(tx.vin.map((v) => v.txid)).toEqual([txid]);
      expect(tx.vout).toHaveLength(1);
      expect(tx.vout[0].scriptPubKey.addresses).toEqual([hot]);
      expect(units(tx.vout[0].value.toFixed(8))).toBe(amount - sweep.minedFee!);
      expect((await tracked()).find((o) => o.txid === sweep.txId)).toMatchObject({ vout: 0, amount: amount - sweep.minedFee!, spentBy: null });
      expect(await balance()).toBe(await unspentAt(node, hot));
    });

    it('transfers from the hot wallet arrive exactly, the change goes back to it, and two sends never spend one output', async () => {
      // an operator's top-ups the service has not seen: found in the node's UTXO set
      await node.pay(hot, '1.0');
      await node.pay(hot, '1.0');
      await node.mine(1);
      const [a, b] = [fresh(), fresh()];
      const ids = [await sendFromHot(a, 30_000_000n), await sendFromHot(b, 40_000_000n)];
      t.clock.advance(61_000);
      // two workers at once over the same transfers
      await Promise.all([t.services.sending.transfers.runOnce(), t.services.sending.transfers.runOnce()]);
      await driveLtc(t, async () => (await Promise.all(ids.map(rowOf))).every((r) => r.status === 'final'));
      const rows = await Promise.all(ids.map(rowOf));
      expect(await unspentAt(node, a)).toBe(30_000_000n);
      expect(await unspentAt(node, b)).toBe(40_000_000n);
      const txs = await Promise.all(rows.map((r) => node.rpc<{ vin: Array<{ txid: string; vout: number }>; vout: Array<{ value: number; scriptPubKey: { addresses: string[] } }> }>('getrawtransaction', [r.txId, true])));
      const spent = txs.flatMap((x) => x.vin.map((v) => `${v.txid}:${v.vout}`));
      expect(new Set(spent).size).toBe(spent.length);
      /** What each transfer holds is what its transaction spends. */
      const expectHeldAsSpent = async () => {
        const all = await tracked();
        for (const [i, x] of txs.entries()) {
          const held = all.filter((o) => o.spentBy === rows[i].id).map((o) => `${o.txid}:${o.vout}`);
          expect(held.sort()).toEqual(x.vin.map((v) => `${v.txid}:${v.vout}`).sort());
        }
      };
      for (const [i, x] of txs.entries()) {
        // the recipient's output and the change, back to the hot wallet
        expect(x.vout.map((o) => o.scriptPubKey.addresses[0]).sort()).toEqual([[a, b][i], hot].sort());
      }
      await expectHeldAsSpent();
      // the change is tracked once mined: the balance is the node's UTXO set's
      expect(await balance()).toBe(await unspentAt(node, hot));
      // the scan forgets no output a transfer spent: the record of what each one spent stays
      await expectHeldAsSpent();
    });

    it('a send that chose an output another one took first is signed again with another', async () => {
      await node.pay(hot, '0.5');
      await node.mine(1);
      t.clock.advance(61_000);
      const family = new UtxoFamily(t.services.sending.utxoReaders.litecoin!, new UtxoRpc(new NodeEndpoints([node.url])), new WalletKeys(t.config.walletMnemonic),
        depositTxsFromDb(h.db()), { hot: new HotOutputs(h.db()), now: () => t.clock.now() });
      const [x, y] = await Promise.all([sendFromHot(fresh(), 10_000_000n), sendFromHot(fresh(), 10_000_000n)]);
      const ctx = { feesPaidBefore: 0n, unsentFromSender: [] };
      const px = await family.prepare(await rowOf(x), ctx);
      const py = await family.prepare(await rowOf(y), ctx);
      if (px.kind !== 'ready' || py.kind !== 'ready') throw new Error('not ready');
      await h.db().transaction((tx) => px.sign(null, tx));
      await expect(h.db().transaction((tx) => py.sign(null, tx)))
        .rejects.toThrow('an output chosen for this transfer was taken by another send meanwhile; chosen again on the next pass');
      const again = await family.prepare(await rowOf(y), ctx);
      if (again.kind !== 'ready') throw new Error('not ready');
      const sy = await h.db().transaction((tx) => again.sign(null, tx));
      const sx = (await h.db().orm.select().from(outgoingAttempts).where(eq(outgoingAttempts.transferId, x)));
      // nothing was stored for x here (signed outside the worker): what each holds differs
      expect(sx).toHaveLength(0);
      const held = await tracked();
      const heldX = held.filter((o) => o.spentBy === x).map((o) => o.txid + o.vout);
      const heldY = held.filter((o) => o.spentBy === y).map((o) => o.txid + o.vout);
      expect(heldX.length).toBeGreaterThan(0);
      expect(heldY.length).toBeGreaterThan(0);
      expect(heldX.filter((k) => heldY.includes(k))).toEqual([]);
      expect(JSON.parse(sy.fee.inputs).map((i: { txid: string; vout: number }) => i.txid + i.vout).sort()).toEqual(heldY.sort());
      // both are the worker's to send now
      await driveLtc(t, async () => (await Promise.all([x, y].map(rowOf))).every((r) => r.status === 'final'));
    });

    it('a stuck transfer from the hot wallet is replaced spending the same outputs, the change paying the higher fee; it arrives once', async () => {
      const to = fresh();
      const id = await sendFromHot(to, 10_000_000n);
      await t.services.sending.transfers.runOnce();
      expect((await rowOf(id)).status).toBe('sent');
      // three Litecoin blocks' time without a block: replaced
      t.clock.advance(3 * 150_000 + 1000);
      await t.services.sending.transfers.runOnce();
      const attempts = await h.db().orm.select().from(outgoingAttempts).where(eq(outgoingAttempts.transferId, id)).orderBy(outgoingAttempts.n);
      expect(attempts).toHaveLength(2);
      const [first, second] = attempts.map((x) => x.fee as Record<string, string>);
      expect(second.inputs).toBe(first.inputs);
      expect(BigInt(second.fee)).toBeGreaterThan(BigInt(first.fee));
      type Tx = { vout: Array<{ value: number; scriptPubKey: { addresses: string[] } }> };
      const [a, b] = await Promise.all(attempts.map((x) => node.rpc<Tx>('decoderawtransaction', [x.raw])));
      const paid = (x: Tx, addr: string) => x.vout.filter((o) => o.scriptPubKey.addresses[0] === addr).reduce((s, o) => s + units(o.value.toFixed(8)), 0n);
      expect([paid(a, to), paid(b, to)]).toEqual([10_000_000n, 10_000_000n]);
      expect(paid(a, hot) - paid(b, hot)).toBe(BigInt(second.fee) - BigInt(first.fee));
      await driveLtc(t, async () => (await rowOf(id)).status === 'final');
      expect((await rowOf(id)).txId).toBe(attempts[1].txId);
      expect(await unspentAt(node, to)).toBe(10_000_000n);
    });

    it('a sent transfer whose output another transaction spent is signed again with other outputs once that spend is final; it arrives once', async () => {
      // two outputs: one for the transfer (the operator takes it), one to sign it again with
      await node.pay(hot, '0.5');
      await node.pay(hot, '0.5');
      await node.mine(1);
      t.clock.advance(61_000);
      const to = fresh();
      const id = await sendFromHot(to, 10_000_000n);
      await t.services.sending.transfers.runOnce();
      expect((await rowOf(id)).status).toBe('sent');
      const attemptsOf = () => h.db().orm.select().from(outgoingAttempts).where(eq(outgoingAttempts.transferId, id)).orderBy(outgoingAttempts.n);
      const [first] = await attemptsOf();
      // the operator spends one of its outputs from a wallet restored from the mnemonic, with a
      // higher fee: litecoind replaces ours (BIP-125) and mines theirs
      const [taken] = JSON.parse((first.fee as Record<string, string>).inputs) as Array<{ txid: string; vout: number }>;
      await operatorSpends(taken);
      await node.mine(1);
      // one block deep, not final (CONFIRMATIONS_LITECOIN=2): it may still be reorganised away, so
      // the transfer keeps its transaction, stuck time or not
      t.clock.advance(3 * 150_000 + 1000);
      await t.services.sending.transfers.runOnce();
      expect(await attemptsOf()).toHaveLength(1);
      expect((await rowOf(id)).status).toBe('sent');
      await node.mine(1);
      t.clock.advance(3 * 150_000 + 1000);
      await t.services.sending.transfers.runOnce();
      expect(await rowOf(id)).toMatchObject({ lastError: NOTE_INPUTS_TAKEN });
      await driveLtc(t, async () => (await rowOf(id)).status === 'final');
      const attempts = await attemptsOf();
      expect(attempts).toHaveLength(2);
      expect((await rowOf(id)).txId).toBe(attempts[1].txId);
      const inputs = JSON.parse((attempts[1].fee as Record<string, string>).inputs) as Array<{ txid: string; vout: number }>;
      expect(inputs.some((i) => i.txid === taken.txid && i.vout === taken.vout)).toBe(false);
      expect(await unspentAt(node, to)).toBe(10_000_000n);
      // the output the operator spent is no longer counted: the balance is the node's UTXO set's
      expect((await tracked()).some((o) => o.txid === taken.txid && o.vout === taken.vout)).toBe(false);
      expect(await balance()).toBe(await unspentAt(node, hot));
    });

    it('an output whose own transaction left the best chain is not taken by another: it may come back with its block', async () => {
      const txid = await node.pay(hot, '0.2');
      await node.mine(1);
      await balance(); // the scan tracks the output
      const tx = await node.rpc<{ blockhash: string; vout: Array<{ n: number; scriptPubKey: { addresses: string[] } }> }>('getrawtransaction', [txid, true]);
      const output = { txid, vout: tx.vout.find((v) => v.scriptPubKey.addresses[0] === hot)!.n };
      const family = new UtxoFamily(t.services.sending.utxoReaders.litecoin!, new UtxoRpc(new NodeEndpoints([node.url])), new WalletKeys(t.config.walletMnemonic),
        depositTxsFromDb(h.db()), { hot: new HotOutputs(h.db()), now: () => t.clock.now() });
      // what the stepper passes: the attempts of a transfer that spends the output
      const attempts = [{ fee: { inputs: JSON.stringify([output]) } }] as unknown as Parameters<UtxoFamily['spentElsewhere']>[0];
      // its block is reorganised away: the transaction is back in the mempool, the output in no block
      await node.rpc('invalidateblock', [tx.blockhash]);
      try {
        expect(await node.rpc('gettxout', [output.txid, output.vout, false])).toBeNull();
        expect(await family.spentElsewhere(attempts, await family.tip())).toBe(false);
        expect((await tracked()).some((o) => o.txid === output.txid && o.vout === output.vout)).toBe(true);
      } finally {
        await node.rpc('reconsiderblock', [tx.blockhash]);
      }
      // back in the best chain and unspent: still not taken
      expect(await family.spentElsewhere(attempts, await family.tip())).toBe(false);
    });

    it('an output the operator moves out of the hot wallet leaves its balance at the next scan of the UTXO set', async () => {
      const txid = await node.pay(hot, '0.3');
      await node.mine(1);
      expect(await balance()).toBe(await unspentAt(node, hot));
      const tx = await node.rpc<{ vout: Array<{ n: number; scriptPubKey: { addresses: string[] } }> }>('getrawtransaction', [txid, true]);
      const moved = { txid, vout: tx.vout.find((v) => v.scriptPubKey.addresses[0] === hot)!.n };
      expect((await tracked()).find((o) => o.txid === moved.txid && o.vout === moved.vout)).toMatchObject({ amount: 30_000_000n, spentBy: null });
      await operatorSpends(moved);
      await node.mine(1);
      expect(await balance()).toBe(await unspentAt(node, hot));
      expect((await tracked()).some((o) => o.txid === moved.txid && o.vout === moved.vout)).toBe(false);
    });

    it('money sent to the hot wallet from elsewhere is tracked once the watcher reads its block, with no scan of the UTXO set', async () => {
      const txid = await node.pay(hot, '0.4');
      const tx = await node.rpc<{ vout: Array<{ n: number; scriptPubKey: { addresses: string[] } }> }>('getrawtransaction', [txid, true]);
      const vout = tx.vout.find((v) => v.scriptPubKey.addresses[0] === hot)!.n;
      const find = async () => (await tracked()).find((o) => o.txid === txid && o.vout === vout);
      await t.services.watching.runOnce();
      // in the mempool it is not the wallet's yet, and it is no payment's deposit
      expect(await find()).toBeUndefined();
      const [block] = await node.mine(1);
      await t.services.watching.runOnce();
      const { height } = await node.rpc<{ height: number }>('getblockheader', [block]);
      expect(await find()).toMatchObject({ amount: 40_000_000n, height, spentBy: null, livemode: true });
      expect(await h.db().orm.select().from(unmatchedDeposits).where(eq(unmatchedDeposits.txId, txid))).toEqual([]);
    });

    it('on a node that cannot scan (Dogecoin 1.14), an output spent elsewhere leaves the balance once the spend is in a block, one of a transaction the node no longer knows too; one whose transaction is back in the mempool, or a transfer holds, stays', async () => {
      const proxy = await startRpcProxy(node.url, ['scantxoutset']);
      try {
        const rpc = new UtxoRpc(new NodeEndpoints([proxy.url]));
        const store = new HotOutputs(h.db());
        const family = new UtxoFamily(new UtxoReader('litecoin', rpc), rpc, new WalletKeys(t.config.walletMnemonic), depositTxsFromDb(h.db()), { hot: store, now: () => t.clock.now() });
        const readBalance = () => { t.clock.advance(61_000); return family.hotBalance(); };
        /** Pays the hot wallet and tracks the output, as the watcher does once it is mined (this node cannot scan for it). */
        const payHot = async (amount: string) => {
          const txid = await node.pay(hot, amount);
          const [block] = await node.mine(1);
          const tx = await node.rpc<{ vout: Array<{ n: number; scriptPubKey: { addresses: string[] } }> }>('getrawtransaction', [txid, true]);
          const output = { txid, vout: tx.vout.find((v) => v.scriptPubKey.addresses[0] === hot)!.n };
          const { height } = await node.rpc<{ height: number }>('getblockheader', [block]);
          await store.add('litecoin', true, [{ ...output, amount: units(amount), height }], t.clock.now());
          return { output, block };
        };
        const isTracked = async (o: { txid: string; vout: number }) => (await tracked()).some((x) => x.txid === o.txid && x.vout === o.vout);

        const spent = await payHot('0.3');
        const reorged = await payHot('0.2');
        const held = await payHot('0.1');
        const holder = await sendFromHot(fresh(), 1_000n);
        await h.db().transaction((tx) => store.reserve(tx, 'litecoin', holder, [held.output]));
        await readBalance(); // the node refuses scantxoutset: from now on, free outputs are asked one by one
        expect(proxy.calls.get('scantxoutset')).toBe(1);

        // the operator spends one: while the spend is only in the mempool it counts
        await operatorSpends(spent.output);
        const before = await readBalance();
        expect(await isTracked(spent.output)).toBe(true);
        await node.mine(1);
        expect(await readBalance()).toBe(before - units('0.3'));
        expect(await isTracked(spent.output)).toBe(false);

        // an output whose block is reorganised away is in no UTXO set, but may come back with it
        await node.rpc('invalidateblock', [reorged.block]);
        try {
          await readBalance();
          expect(await isTracked(reorged.output)).toBe(true);
        } finally {
          await node.rpc('reconsiderblock', [reorged.block]);
        }
        // one whose transaction the node no longer knows (its block left, and it never came back) is gone
        const unknown = { txid: crypto.randomBytes(32).toString('hex'), vout: 0 };
        await store.add('litecoin', true, [{ ...unknown, amount: 1_000n, height: 1 }], t.clock.now());
        await readBalance();
        expect(await isTracked(unknown)).toBe(false);
        // one a transfer holds stays, spent or not: its own transaction spends it
        await operatorSpends(held.output);
        await node.mine(1);
        await readBalance();
        expect(await isTracked(held.output)).toBe(true);
        // ... even when a transfer takes it between the read of the free outputs and their deletion
        await store.forgetFree('litecoin', true, [held.output]);
        expect(await isTracked(held.output)).toBe(true);
        expect(proxy.calls.get('scantxoutset')).toBe(1);
        const { reference } = await rowOf(holder);
        await h.db().transaction((tx) => t.services.sending.transfers.port.cancel(tx, reference));
      } finally {
        await proxy.close();
      }
    });

    it('a scan forgets only free outputs of blocks it covered: one of a later block, or one a transfer holds, stays', async () => {
      const store = new HotOutputs(h.db());
      const [early, late, held, givenUp] = Array.from({ length: 4 }, () => crypto.randomBytes(32).toString('hex'));
      // heights below the node's own (regtest starts past 100), so no output of the other tests is touched
      await store.add('litecoin', true, [early, late, held, givenUp].map((txid) => ({ txid, vout: 0, amount: 1_000n, height: txid === late ? 3 : 1 })), t.clock.now());
      const holder = await sendFromHot(fresh(), 1_000n);
      const canceled = await sendFromHot(fresh(), 1_000n);
      const [holding, givingUp] = [await rowOf(holder), await rowOf(canceled)];
      await h.db().transaction(async (tx) => {
        await store.reserve(tx, 'litecoin', holder, [{ txid: held, vout: 0 }]);
        await store.reserve(tx, 'litecoin', canceled, [{ txid: givenUp, vout: 0 }]);
        await t.services.sending.transfers.port.cancel(tx, givingUp.reference);
      });
      // a scan at height 2 that shows none of them: those of block 1 were spent, the one of block 3 came after it
      await store.forgetMissing('litecoin', true, [], 2);
      const left = (await tracked()).map((o) => o.txid);
      expect([early, late, held, givenUp].map((x) => left.includes(x))).toEqual([false, true, true, false]);
      await h.db().transaction((tx) => t.services.sending.transfers.port.cancel(tx, holding.reference));
      await h.db().orm.delete(utxoHotOutputs).where(inArray(utxoHotOutputs.txid, [late, held]));
    });

    it('a transfer below the dust limit, or to an address of another network, is failed after one pass with the reason: no retry can change either', async () => {
      await node.pay(hot, '0.5');
      await node.mine(1);
      t.clock.advance(61_000);
      const dusty = fresh();
      const small = await sendFromHot(dusty, 293n);
      // a Bitcoin regtest address: no Litecoin network has its prefix
      const bitcoin = encodeSegwit('bcrt', 0, crypto.randomBytes(20));
      const elsewhere = await sendFromHot(bitcoin, 1_000_000n);
      await t.services.sending.transfers.runOnce();
      expect(await rowOf(small)).toMatchObject({ status: 'failed', failures: 1, lastError: `293 base units to ${dusty} is below the dust limit of 294` });
      expect(await rowOf(elsewhere)).toMatchObject({ status: 'failed', failures: 1, lastError: `${bitcoin} is not an address of this litecoin network` });
      // nothing signed, no output of the hot wallet held for them
      expect((await tracked()).filter((o) => o.spentBy === small || o.spentBy === elsewhere)).toEqual([]);
    });

    it('a transfer the hot wallet cannot pay waits for funds with its shortfall', async () => {
      t.clock.advance(61_000);
      const id = await sendFromHot(fresh(), 100_000_000_000n);
      await t.services.sending.transfers.runOnce();
      const row = await rowOf(id);
      const spendable = (await tracked()).filter((o) => o.spentBy === null);
      const held = spendable.reduce((s, o) => s + o.amount, 0n);
      expect(row).toMatchObject({ status: 'recorded', waiting: 'funds' });
      expect(row.lastError).toBe(`the litecoin hot wallet holds ${held} base units in ${spendable.length} spendable outputs; 100000000000 and the network fee are needed`);
      expect((await hotWallet(t, 'litecoin')).needs_funding).toBe(true);
      await t.platform.db.transaction((tx) => t.services.sending.transfers.port.cancel(tx, row.reference));
    });

    it('reads the node\'s network once per node, not on every send and balance read; a node on another network later is refused', async () => {
      await node.pay(hot, '0.5');
      await node.mine(1);
      t.clock.advance(61_000);
      // two URLs of the same node: the calls moving on to the other one is a node of its own
      const rpc = new CountingRpc(new NodeEndpoints([node.url, node.url.replace('127.0.0.1', 'localhost')]));
      const family = new UtxoFamily(new UtxoReader('litecoin', rpc), rpc, new WalletKeys(t.config.walletMnemonic),
        depositTxsFromDb(h.db()), { hot: new HotOutputs(h.db()), now: () => t.clock.now() });
      const reads = () => rpc.calls.filter((m) => m === 'getblockchaininfo').length;
      const ctx = { feesPaidBefore: 0n, unsentFromSender: [] };
      const ids = [await sendFromHot(fresh(), 1_000_000n), await sendFromHot(fresh(), 1_000_000n)];
      for (const id of ids) expect((await family.prepare(await rowOf(id), ctx)).kind).toBe('ready');
      expect(await family.hotBalance()).toBeGreaterThan(0n);
      expect(await family.hotBalance()).toBeGreaterThan(0n);
      expect(reads()).toBe(1);
      rpc.nodes.skip('test: the next URL');
      await family.hotBalance();
      expect(reads()).toBe(2);
      // the watcher of this process read the node on another network (the live network moved): refused
      setLiveNetwork('litecoin', 'main');
      await expect(family.prepare(await rowOf(ids[0]), ctx)).rejects.toThrow(networkMoved('litecoin', 'regtest', 'main'));
      // ... and the node asked again on the next call: it serves regtest again
      expect(reads()).toBe(2);
      expect((await family.prepare(await rowOf(ids[0]), ctx)).kind).toBe('ready');
      expect(reads()).toBe(3);
      for (const id of ids) {
        const { reference } = await rowOf(id);
        await t.platform.db.transaction((tx) => t.services.sending.transfers.port.cancel(tx, reference));
      }
    });

    it('a refusal from litecoind after a node that failed to answer is uncertain: that node may have taken the transaction', async () => {
      const familyOf = (urls: string[]) => {
        const rpc = new UtxoRpc(new NodeEndpoints(urls));
        return new UtxoFamily(new UtxoReader('litecoin', rpc), rpc, new WalletKeys(t.config.walletMnemonic), depositTxsFromDb(h.db()), { hot: new HotOutputs(h.db()), now: () => t.clock.now() });
      };
      // bytes no node can decode: litecoind refuses them in its own words
      expect(await familyOf([node.url]).broadcast('00')).toMatchObject({ kind: 'refused', why: expect.stringContaining('decode failed') });
      const dead = `http://127.0.0.1:${await freePort()}`;
      expect(await familyOf([dead, node.url]).broadcast('00')).toMatchObject({ kind: 'uncertain', why: expect.stringContaining(dead) });
    });

    it('asks whether a stuck spend\'s inputs were taken in batch requests, not one call per input', async () => {
      // 30 outputs of one transaction, all unspent: nothing taken, in one request (up to 500 outputs each)
      const txid = await node.rpc<string>('sendmany', ['', Object.fromEntries(Array.from({ length: 30 }, () => [fresh(), 0.001]))], 'miner');
      await node.mine(1);
      const tx = await node.rpc<{ vout: Array<{ n: number; value: number }> }>('getrawtransaction', [txid, true]);
      const outputs = tx.vout.filter((v) => v.value === 0.001).map((v) => ({ txid, vout: v.n }));
      expect(outputs).toHaveLength(30);
      const rpc = new CountingRpc(new NodeEndpoints([node.url]));
      const family = new UtxoFamily(t.services.sending.utxoReaders.litecoin!, rpc, new WalletKeys(t.config.walletMnemonic), depositTxsFromDb(h.db()), { hot: new HotOutputs(h.db()), now: () => t.clock.now() });
      const attempts = [{ fee: { inputs: JSON.stringify(outputs) } }] as unknown as Parameters<UtxoFamily['spentElsewhere']>[0];
      const tip = await family.tip();
      rpc.calls.length = 0;
      expect(await family.spentElsewhere(attempts, tip)).toBe(false);
      expect(rpc.batches).toBe(1);
      expect(rpc.calls.filter((m) => m === 'gettxout')).toHaveLength(30);
      expect(rpc.calls.filter((m) => m !== 'gettxout')).toEqual([]);
    });

    it('a stuck spend whose many inputs another mined transaction took: each funding transaction and its block asked once, in batch requests, not per input', async () => {
      // 30 outputs of one transaction to the node's wallet, then all of them spent by the node's wallet, mined
      const mine: string[] = [];
      for (let i = 0; i < 30; i++) mine.push(await node.minerAddress());
      const txid = await node.rpc<string>('sendmany', ['', Object.fromEntries(mine.map((a) => [a, 0.001]))], 'miner');
      await node.mine(1);
      const tx = await node.rpc<{ vout: Array<{ n: number; value: number }> }>('getrawtransaction', [txid, true]);
      const outputs = tx.vout.filter((v) => v.value === 0.001).map((v) => ({ txid, vout: v.n }));
      expect(outputs).toHaveLength(30);
      const raw = await node.rpc<string>('createrawtransaction', [outputs, [{ [await node.minerAddress()]: 0.0299 }]]);
      const signed = await node.rpc<{ hex: string }>('signrawtransactionwithwallet', [raw], 'miner');
      await node.rpc<string>('sendrawtransaction', [signed.hex]);
      await node.mine(1);

      const rpc = new CountingRpc(new NodeEndpoints([node.url]));
      const family = new UtxoFamily(t.services.sending.utxoReaders.litecoin!, rpc, new WalletKeys(t.config.walletMnemonic), depositTxsFromDb(h.db()), { hot: new HotOutputs(h.db()), now: () => t.clock.now() });
      const attempts = [{ fee: { inputs: JSON.stringify(outputs) } }] as unknown as Parameters<UtxoFamily['spentElsewhere']>[0];
      const tip = await family.tip();
      rpc.calls.length = 0;
      rpc.requests = 0;
      expect(await family.spentElsewhere(attempts, tip)).toBe(true);
      expect(rpc.calls.filter((m) => m === 'gettxout')).toHaveLength(30);
      // the inputs' one funding transaction and its block, once each
      expect(rpc.calls.filter((m) => m === 'getrawtransaction')).toHaveLength(1);
      expect(rpc.calls.filter((m) => m === 'getblockheader')).toHaveLength(1);
      // two gettxout batches (25 and 5), the funding transactions, their blocks, and the tip
      expect(rpc.requests).toBeLessThanOrEqual(5);
    });

    it('the previous transactions a send signs over are read in one batch request, each once', async () => {
      const a = await node.pay(fresh(), '0.01');
      const b = await node.pay(fresh(), '0.01');
      const rpc = new CountingRpc(new NodeEndpoints([node.url]));
      const got = await rawTransactions(rpc, [a, b, a]);
      expect(rpc.batches).toBe(1);
      expect(rpc.calls).toEqual(['getrawtransaction', 'getrawtransaction']);
      expect([...got.keys()]).toEqual([a, b]);
      for (const id of [a, b]) expect(Buffer.from(got.get(id)!).toString('hex')).toBe(await node.rpc<string>('getrawtransaction', [id, 0]));
      // a transaction the node does not know fails the read: nothing is signed over a missing one
      await expect(rawTransactions(rpc, [a, '00'.repeat(32)])).rejects.toThrow(RpcError);
      await node.mine(1);
    });
  });
});

describe.runIf(litecoindOrSkip())('LTC hot wallet: two passes over one transfer', () => {
  let node: LitecoinNode;
  beforeAll(async () => { node = await startLitecoind(); }, 60_000);
  afterAll(async () => { await node?.close(); setLiveNetwork('litecoin', 'main'); });

  describeEachDb('a pass that read the transfer before another signed it', (h) => {
    let t: LtcApp;
    let hot: string;
    beforeAll(async () => {
      // a hot wallet of its own: only the output funded here
      t = await startLtcApp(h.db(), node, { WALLET_MNEMONIC: generateMnemonic(wordlist) });
      hot = (await hotWallet(t, 'litecoin')).address as string;
    });
    afterAll(async () => { await t?.close(); });

    it('finding nothing left to spend, does not let go of the outputs the signed transaction spends', async () => {
      await node.pay(hot, '0.5');
      await node.mine(1);
      t.clock.advance(61_000);
      const reference = `ref_${crypto.randomUUID()}`;
      const id = await t.platform.db.transaction((tx) => t.services.sending.transfers.port.send(tx, { chain: 'litecoin', token: 'LTC', to: encodeSegwit('rltc', 0, crypto.randomBytes(20)), amount: 10_000_000n, purpose: 'payout', reference }));
      const stale = (await h.db().orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.id, id)))[0];
      // one pass signs and sends it (in the mempool, holding the wallet's only output)
      await t.services.sending.transfers.runOnce();
      const [sent] = await h.db().orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.id, id));
      expect(sent.status).toBe('sent');
      const held = async () => (await h.db().orm.select().from(utxoHotOutputs).where(eq(utxoHotOutputs.spentBy, id))).map((o) => `${o.txid}:${o.vout}`);
      const [attempt] = await h.db().orm.select().from(outgoingAttempts).where(eq(outgoingAttempts.transferId, id));
      const spends = (await node.rpc<{ vin: Array<{ txid: string; vout: number }> }>('getrawtransaction', [attempt.txId, true])).vin.map((v) => `${v.txid}:${v.vout}`);
      expect(await held()).toEqual(spends);

      // another pass, over the row it read while the transfer was still recorded: the output is
      // spent in the mempool, so it finds nothing to spend
      const prep = await t.services.sending.utxoFamilies.litecoin!.prepare(stale, { feesPaidBefore: 0n, unsentFromSender: [] });
      expect(prep.kind).toBe('no_funds');
      // the signed transaction still holds what it spends
      expect(await held()).toEqual(spends);
      await t.platform.db.transaction((tx) => t.services.sending.transfers.port.cancel(tx, reference)).catch(() => {});
    });
  });
});

/** Counts the calls made to the node (each method once per call, and once per call of a batch). */
class CountingRpc extends UtxoRpc {
  readonly calls: string[] = [];
  batches = 0;
  /** Requests to the node: a call, or a batch of them. */
  requests = 0;
  override call<T>(method: string, params: unknown[] = []): Promise<T> {
    this.requests++;
    this.calls.push(method);
    return super.call<T>(method, params);
  }
  override batch(calls: ReadonlyArray<{ method: string; params: unknown[] }>): ReturnType<UtxoRpc['batch']> {
    this.batches++;
    this.requests++;
    this.calls.push(...calls.map((c) => c.method));
    return super.batch(calls);
  }
}
