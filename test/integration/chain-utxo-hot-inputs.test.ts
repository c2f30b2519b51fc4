// A Litecoin hot wallet of many small outputs (the service's shares of direct settlements, change)
// on a real node (regtest): one transaction spends at most as many of them as fit in the node's
// standard transaction size (lowered here to MAX, so a few dozen outputs are too many). A transfer
// the node would refuse as too large (`tx-size`) is never signed: larger outputs pay it, largest
// first; when the largest allowed number cannot, the wallet consolidates its smallest outputs into
// one first (a `consolidation` transfer the payout waits for), as many rounds as it takes.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { hotWallet } from '../harness/chain-send.ts';
import { litecoindOrSkip, startLitecoind, type LitecoinNode } from '../harness/litecoind.ts';
import { driveLtc, startLtcApp, unspentAt, type LtcApp } from '../harness/utxo-send.ts';
import { encodeSegwit } from '../../src/chains/addresses/encoding.ts';
import { setLiveNetwork } from '../../src/chains/addresses/index.ts';
import { outgoingAttempts, outgoingTransfers, type TransferRow } from '../../src/chains/transfers/index.ts';
import { utxoHotOutputs } from '../../src/chains/utxo/send/index.ts';
import { scriptOfAddress } from '../../src/chains/utxo/index.ts';
import { UTXO_COINS } from '../../src/chains/utxo/coins.ts';
import { signSpend } from '../../src/chains/utxo/send/sign.ts';
import { UTXO_NETWORKS } from '../../src/chains/addresses/networks.ts';
import { maxHotInputs } from '../../src/chains/utxo/send/family.ts';
import { WalletKeys } from '../../src/chains/wallets/index.ts';
import { startRpcProxy, type RpcProxy } from '../harness/rpc-proxy.ts';
import { coinsToBaseUnits } from '../../src/chains/utxo/coins.ts';
import { rawTransactions } from '../../src/chains/utxo/send/raw-transactions.ts';
import { UtxoRpc } from '../../src/chains/utxo/rpc.ts';
import { NodeEndpoints } from '../../src/chains/rpc/endpoints.ts';
import { hex } from '@scure/base';

const fresh = () => encodeSegwit('rltc', 0, crypto.randomBytes(20));
const SMALL = 100_000n;
const COUNT = 120;
/** The most inputs of a hot-wallet spend in these tests (the real one is 1,303 on Litecoin). */
const MAX = 50;

describe.runIf(litecoindOrSkip())('LTC hot wallet of many small outputs', () => {
  let node: LitecoinNode;
  beforeAll(async () => { node = await startLitecoind(); }, 60_000);
  afterAll(async () => { await node?.close(); setLiveNetwork('litecoin', 'main'); });

  it('one transaction spends at most as many inputs as fit in 90% of the standard size', () => {
    expect(maxHotInputs(UTXO_COINS.litecoin)).toBe(1_303);
    expect(maxHotInputs(UTXO_COINS.dogecoin)).toBe(603);
  });

  /** An app whose Litecoin family spends at most MAX inputs; `mnemonic`: the wallet of an earlier one (a restart). */
  const start = async (db: LtcApp['platform']['db'], mnemonic?: string): Promise<LtcApp> => {
    const t = await startLtcApp(db, node, mnemonic ? { WALLET_MNEMONIC: mnemonic } : {});
    t.services.sending.utxoFamilies.litecoin!.maxInputs = MAX;
    return t;
  };

  /** COUNT outputs of SMALL to the hot wallet in one transaction (signed with its key: a node wallet refuses one address twice), mined. */
  const manySmall = async (t: LtcApp, hot: string) => {
    const funding = await node.pay(hot, '0.5');
    await node.mine(1);
    const prev = await node.rpc<{ vout: Array<{ n: number; value: number; scriptPubKey: { addresses: string[] } }> }>('getrawtransaction', [funding, true]);
    const out = prev.vout.find((v) => v.scriptPubKey.addresses?.[0] === hot)!;
    const regtest = UTXO_NETWORKS.litecoin.regtest;
    const script = scriptOfAddress(regtest, hot)!;
    const key = new WalletKeys(t.config.walletMnemonic).hotPrivateKey('litecoin', true);
    const outs = Array.from({ length: COUNT }, () => ({ script, amount: SMALL }));
    // the rest to an address of someone else's, less a fee of about 2 litoshi a vbyte
    outs.push({ script: scriptOfAddress(regtest, fresh())!, amount: 50_000_000n - SMALL * BigInt(COUNT) - 20_000n });
    const spend = await signSpend(UTXO_COINS.litecoin, [{ txid: funding, vout: out.n, amount: 50_000_000n, script }], outs, key);
    await node.rpc('sendrawtransaction', [spend.raw]);
    await node.mine(1);
  };

  const sendFromHot = (t: LtcApp, to: string, amount: bigint) =>
    t.platform.db.transaction((tx) => t.services.sending.transfers.port.send(tx, { chain: 'litecoin', token: 'LTC', to, amount, purpose: 'payout', reference: `ref_${crypto.randomUUID()}` }));

  describeEachDb('inputs within the standard size', (h) => {
    let t: LtcApp;
    let hot: string;
    beforeAll(async () => {
      t = await start(h.db());
      hot = (await hotWallet(t, 'litecoin')).address as string;
    });
    afterAll(async () => { await t?.close(); });

    const rowOf = async (id: string): Promise<TransferRow> => (await h.db().orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.id, id)))[0];

    it('a payout that more small outputs than one transaction holds cannot cover is paid from larger ones, largest first, with no consolidation', async () => {
      await manySmall(t, hot);
      // the operator's larger output, newer than the small ones
      await node.pay(hot, '0.45');
      await node.mine(1);
      const to = fresh();
      // more than the MAX oldest (small) ones hold
      const amount = 46_000_000n;
      const id = await sendFromHot(t, to, amount);
      t.clock.advance(61_000); // past the UTXO set scan's interval: the outputs are found
      await driveLtc(t, async () => (await rowOf(id)).status === 'final');
      expect(await unspentAt(node, to)).toBe(amount);
      const tx = await node.rpc<{ vin: unknown[] }>('getrawtransaction', [(await rowOf(id)).txId, true]);
      // the top-up and a dozen small ones, not MAX of the oldest
      expect(tx.vin.length).toBeLessThan(20);
      expect(await h.db().orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.purpose, 'consolidation'))).toEqual([]);
    }, 120_000);
  });

  describeEachDb('node round trips', (h) => {
    let proxy: RpcProxy;
    let t: LtcApp;
    let hot: string;
    beforeAll(async () => {
      // the gateway talks to the node through a proxy that counts its requests
      proxy = await startRpcProxy(node.url);
      t = await startLtcApp(h.db(), node, { LITECOIN_RPC_URL: proxy.url });
      t.services.sending.utxoFamilies.litecoin!.maxInputs = MAX;
      hot = (await hotWallet(t, 'litecoin')).address as string;
    });
    afterAll(async () => { await t?.close(); await proxy?.close(); });

    it('a mined spend of many inputs is looked at (inclusion, its fee) in a few requests to the node, each previous transaction read once, however many inputs it has', async () => {
      // outputs of as many transactions of their own (oldest, spent first), then many of one transaction
      const separate = 10;
      for (let i = 0; i < separate; i++) await node.pay(hot, '0.001');
      await node.mine(1);
      await manySmall(t, hot);
      const to = fresh();
      const amount = SMALL * 40n;
      const id = await sendFromHot(t, to, amount);
      t.clock.advance(61_000);
      await driveLtc(t, async () => (await h.db().orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.id, id)))[0].status === 'final');
      const [row] = await h.db().orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.id, id));
      expect(await unspentAt(node, to)).toBe(amount);

      // the fee worked out here from the node directly: its inputs' value less its outputs'
      const tx = await node.rpc<{ vin: Array<{ txid: string; vout: number }>; vout: Array<{ value: number }> }>('getrawtransaction', [row.txId, true]);
      expect(tx.vin.length).toBeGreaterThan(separate + 20);
      const prevTxs = new Set(tx.vin.map((i) => i.txid));
      expect(prevTxs.size).toBe(separate + 1);
      let fee = 0n;
      for (const i of tx.vin) {
        const prev = await node.rpc<{ vout: Array<{ n: number; value: number }> }>('getrawtransaction', [i.txid, true]);
        fee += coinsToBaseUnits(prev.vout.find((v) => v.n === i.vout)!.value);
      }
      for (const v of tx.vout) fee -= coinsToBaseUnits(v.value);
      expect(row.minedFee).toBe(fee);

      // what the worker asks on each pass while the transfer waits for its confirmations
      proxy.requests = 0;
      proxy.calls.clear();
      const inc = await t.services.sending.utxoFamilies.litecoin!.inclusion([row.txId!]);
      expect(inc).toMatchObject({ txId: row.txId, ok: true, feePaid: fee });
      // the transaction, its block's header and its inputs' transactions in one batch: not a request per input
      expect(proxy.requests).toBeLessThanOrEqual(3);
      // the transaction and each of its inputs' transactions once
      expect(proxy.calls.get('getrawtransaction')).toBe(prevTxs.size + 1);
    }, 120_000);

    it('coin selection and the spent check ask the node about hundreds of outputs in a few requests, and about a few of the oldest for a small send', async () => {
      await manySmall(t, hot);
      await manySmall(t, hot);
      const wallet = t.services.sending.utxoFamilies.litecoin!.hotWallet!;
      t.clock.advance(61_000);
      await wallet.discover(t.clock.now());
      const free = await wallet.store.free(h.db().orm, 'litecoin', true, null);
      expect(free.length).toBeGreaterThanOrEqual(2 * COUNT);
      const feeOf = (n: number) => BigInt(n) * 200n;
      const asked = () => proxy.calls.get('gettxout') ?? 0;

      // a small send: the first batch of the oldest outputs covers it, the others are not asked about
      proxy.requests = 0;
      proxy.calls.clear();
      expect((await wallet.select('tr_probe', SMALL, feeOf, MAX)).inputs).toHaveLength(2);
      expect([proxy.requests, asked()]).toEqual([1, 25]);

      // more than the wallet holds: every output asked, in batches growing from 25 (was 25 each: a round trip per 25 outputs)
      proxy.requests = 0;
      proxy.calls.clear();
      const all = await wallet.select('tr_probe', 10n ** 12n, feeOf, MAX);
      expect(all.inputs).toBeNull();
      expect(all.confirmed).toHaveLength(free.length);
      expect(asked()).toBe(free.length);
      expect(proxy.requests).toBeLessThanOrEqual(Math.ceil(Math.log2(free.length / 25 + 1)));

      // whether they are still unspent: up to 500 a request
      proxy.requests = 0;
      proxy.calls.clear();
      expect(await wallet.missing(all.confirmed)).toBe(0);
      expect([proxy.requests, asked()]).toEqual([Math.ceil(free.length / 500), free.length]);
    }, 120_000);

    it('the whole previous transactions a legacy spend signs over are read 100 to a request, not all in one', async () => {
      // the coinbase transactions of the chain's blocks (over 100: the node starts with 101; mining
      // more here would reach MWEB's activation height), one asked twice
      const tip = await node.rpc<number>('getblockcount', []);
      const txids: string[] = [];
      for (let height = 1; height <= tip; height++) {
        txids.push((await node.rpc<{ tx: string[] }>('getblock', [await node.rpc<string>('getblockhash', [height]), 1])).tx[0]);
      }
      expect(txids.length).toBeGreaterThan(100);
      proxy.requests = 0;
      proxy.calls.clear();
      const raw = await rawTransactions(new UtxoRpc(new NodeEndpoints([proxy.url])), [...txids, txids[0]]);
      expect(raw.size).toBe(txids.length);
      expect(hex.encode(raw.get(txids[7])!)).toBe(await node.rpc<string>('getrawtransaction', [txids[7], 0]));
      expect([proxy.requests, proxy.calls.get('getrawtransaction')]).toEqual([Math.ceil(txids.length / 100), txids.length]);
    }, 120_000);
  });

  describeEachDb('consolidation', (h) => {
    let t: LtcApp;
    let hot: string;
    beforeAll(async () => {
      t = await start(h.db());
      hot = (await hotWallet(t, 'litecoin')).address as string;
    });
    afterAll(async () => { await t?.close(); });

    const rowOf = async (id: string): Promise<TransferRow> => (await h.db().orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.id, id)))[0];
    const consolidations = () => h.db().orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.purpose, 'consolidation')).orderBy(outgoingTransfers.seq);

    it('a payout more than the largest allowed number of outputs must pay gets the smallest ones consolidated first, in rounds, then is paid exactly; a restart after the consolidation is recorded neither loses nor repeats it', async () => {
      await manySmall(t, hot);
      const before = await unspentAt(node, hot);
      const to = fresh();
      // twice what MAX of them hold: two rounds
      const amount = SMALL * BigInt(MAX) * 2n;
      const id = await sendFromHot(t, to, amount);
      t.clock.advance(61_000);
      await t.services.sending.transfers.runOnce();
      const [first] = await consolidations();
      expect(first).toMatchObject({
        status: 'recorded', fromRole: 'hot', fromAddress: hot, toAddress: hot, paysOwnFee: true, amount: SMALL * BigInt(MAX), reference: id,
      });
      const payout = await rowOf(id);
      expect(payout).toMatchObject({ status: 'recorded', dependsOn: first.id, waiting: null });
      expect(payout.lastError).toBe(`waiting for a consolidation of the hot wallet: the litecoin hot wallet holds ${SMALL * BigInt(COUNT)} base units in ${COUNT} spendable outputs, but one transaction spends at most ${MAX} of them (the node's standard size), worth ${SMALL * BigInt(MAX)}; ${amount} and the network fee are needed; its ${MAX} smallest, worth ${SMALL * BigInt(MAX)}, become one`);
      // its inputs are reserved with it, before anything is signed
      expect(await h.db().orm.select().from(utxoHotOutputs).where(eq(utxoHotOutputs.spentBy, first.id))).toHaveLength(MAX);
      expect(await h.db().orm.select().from(outgoingAttempts).where(eq(outgoingAttempts.transferId, id))).toEqual([]);
      // waiting for a consolidation is not waiting for funds; the operator sees the wallet consolidating
      expect(await hotWallet(t, 'litecoin')).toMatchObject({ needs_funding: false, consolidating: true });

      // the process stops here and another one starts with the same wallet and database
      const mnemonic = t.config.walletMnemonic;
      await t.close();
      t = await start(h.db(), mnemonic);
      // its clock no earlier than the first one's (that one was moved on)
      t.clock.advance(61_000);
      await driveLtc(t, async () => (await rowOf(id)).status === 'final', 40);

      // exactly the amount, once
      expect(await unspentAt(node, to)).toBe(amount);
      expect(await h.db().orm.select().from(outgoingAttempts).where(eq(outgoingAttempts.transferId, id))).toHaveLength(1);
      const done = await consolidations();
      expect(done.map((c) => c.status)).toEqual(['final', 'final']);
      expect((await hotWallet(t, 'litecoin')).consolidating).toBe(false);
      expect(done[0].id).toBe(first.id);
      let fees = 0n;
      for (const c of done) {
        const tx = await node.rpc<{ vin: unknown[]; vout: Array<{ scriptPubKey: { addresses?: string[] } }> }>('getrawtransaction', [c.txId, true]);
        // MAX inputs of the wallet, one output back to it: its amount less the fee, the fee the service's (mined_fee)
        expect(tx.vin).toHaveLength(MAX);
        expect(tx.vout.map((v) => v.scriptPubKey.addresses?.[0])).toEqual([hot]);
        expect(c.minedFee).toBeGreaterThan(0n);
        expect(c.sentAmount).toBe(c.amount - c.minedFee!);
        fees += c.minedFee!;
      }
      // what the wallet holds on the node: before, less the payout and every fee paid
      const paid = await rowOf(id);
      expect(await unspentAt(node, hot)).toBe(before - amount - fees - paid.minedFee!);
      // ... and what it tracks
      expect(await t.services.sending.utxoFamilies.litecoin!.hotBalance()).toBe(before - amount - fees - paid.minedFee!);
    }, 180_000);
  });
});
