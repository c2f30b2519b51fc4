// Deposits whose transaction stands where the watcher has not verified the chain (CONTRACT.md "Live
// chains"), on a real Litecoin node (regtest):
// - seen in the mempool, then mined in a block above the height the watcher finished (a watcher
//   catching up, one block per pass here): it waits at 0 confirmations until the watcher reaches
//   that block, since the block may still be replaced; if it is, by a branch where the deposit was
//   double spent, the deposit fails and is never counted;
// - its block taken away and the transaction back in the mempool: it waits there at 0
//   confirmations, and fails when it is not mined again within the hour;
// - seen in the mempool only, then forgotten by the node (in no block, not in the mempool): it fails
//   an hour after it was seen.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDb } from '../harness/databases.ts';
import { getPayment, type Json } from '../harness/payments.ts';
import { createLivePayment, owed } from '../harness/chain-send.ts';
import { litecoindOrSkip, startLitecoind, type LitecoinNode } from '../harness/litecoind.ts';
import { ltcMerchant, ltcText, startLtcApp, type LtcApp } from '../harness/utxo-send.ts';
import { setLiveNetwork } from '../../src/chains/addresses/index.ts';
import { ChainWatching, ORPHAN_TIMEOUT_MS } from '../../src/chains/watch/index.ts';

describe.runIf(litecoindOrSkip())('litecoin deposits where the watcher has not verified the chain', () => {
  let node: LitecoinNode;
  beforeAll(async () => { node = await startLitecoind(); }, 60_000);
  afterAll(async () => { await node?.close(); setLiveNetwork('litecoin', 'main'); });

  describeEachDb('a watcher finishing one block per pass', (h) => {
    let t: LtcApp;
    // the app's own watcher is never run: this one, over the same parts, stops after each block
    let watching: ChainWatching;
    beforeAll(async () => {
      t = await startLtcApp(h.db(), node);
      watching = new ChainWatching(t.platform, t.services.nodes, [t.services.sending.readers.litecoin!],
        { intake: t.services.payments.intake, market: t.services.market }, { maxBlocksPerPass: 1 });
      await caughtUp();
    });
    afterAll(async () => { await watching?.stop(); await t?.close(); });

    const pass = async () => {
      await watching.runOnce();
      await t.platform.outbox.drainNow();
    };
    const watcherHeight = () => Number(watching.states()[0].height);
    /** Passes until the watcher has finished the node's tip. */
    async function caughtUp(): Promise<void> {
      const tip = await node.rpc<number>('getblockcount');
      for (let i = 0; i < 20 && (watching.states()[0]?.height ?? -1n) < BigInt(tip); i++) await pass();
      expect(watcherHeight()).toBe(tip);
    }
    const now = (key: string, id: string): Promise<Json> => getPayment(t.app, key, id);

    it('mined above the finished height: no confirmation before the watcher reaches its block; double spent there, it fails', async () => {
      const m = await ltcMerchant(t);
      const p = await createLivePayment(t, m, 'LTC');
      // replaceable, so the customer's node lets them spend the same coins again
      const txid = await node.rpc<string>('sendtoaddress', [p.deposit_address, ltcText(owed(p)), '', '', false, true], 'miner');
      await pass();
      expect(await now(m.acct.liveKey, p.id)).toMatchObject({ status: 'detecting', confirmations: 0 });

      // an empty block, then the deposit's: the next pass finishes only the first
      await node.rpc('generateblock', [await node.minerAddress(), []]);
      const [block] = await node.mine(1);
      const height = (await node.rpc<{ height: number }>('getblockheader', [block])).height;
      await pass();
      expect(watcherHeight()).toBe(height - 1);
      expect(await now(m.acct.liveKey, p.id)).toMatchObject({ status: 'detecting', confirmations: 0 });
      expect((await now(m.acct.liveKey, p.id)).deposits).toEqual([expect.objectContaining({ tx_id: txid, confirmations: 0, status: 'pending' })]);

      // before the watcher gets there, that block is replaced by one mining a double spend of the deposit
      await node.rpc('invalidateblock', [block]);
      const orig = await node.rpc<{ vin: Array<{ txid: string; vout: number }> }>('getrawtransaction', [txid, true]);
      const inputs = orig.vin.map((v) => ({ txid: v.txid, vout: v.vout }));
      const prevValue = async (i: { txid: string; vout: number }) => (await node.rpc<{ vout: Array<{ value: number; n: number }> }>('getrawtransaction', [i.txid, true])).vout.find((o) => o.n === i.vout)!.value;
      const total = (await Promise.all(inputs.map(prevValue))).reduce((x, y) => x + y, 0);
      const raw = await node.rpc<string>('createrawtransaction', [inputs, { [await node.minerAddress()]: Number((total - 0.01).toFixed(8)) }]);
      const signed = await node.rpc<{ hex: string }>('signrawtransactionwithwallet', [raw], 'miner');
      await node.rpc('generateblock', [await node.minerAddress(), [signed.hex]]);
      // deep enough that a deposit counted in the replaced block would be final
      await node.mine(1);
      await caughtUp();
      const after = await now(m.acct.liveKey, p.id);
      expect(after.deposits).toEqual([expect.objectContaining({ tx_id: txid, status: 'failed', confirmations: 0 })]);
      expect(after.status).not.toBe('confirmed');
    });

    it('its block taken away, the transaction waits in the mempool at 0 confirmations, and fails when not mined again within the hour', async () => {
      const m = await ltcMerchant(t);
      const p = await createLivePayment(t, m, 'LTC');
      const txid = await node.pay(p.deposit_address, ltcText(owed(p)));
      const [block] = await node.mine(1);
      await caughtUp();
      expect(await now(m.acct.liveKey, p.id)).toMatchObject({ status: 'detecting', confirmations: 1 });
      await node.rpc('invalidateblock', [block]);
      expect(await node.rpc<string[]>('getrawmempool')).toContain(txid);
      await pass();
      expect(await now(m.acct.liveKey, p.id)).toMatchObject({ status: 'detecting', confirmations: 0 });
      // in the mempool all along: the hour runs from leaving the block, the mempool does not stop it
      t.clock.advance(ORPHAN_TIMEOUT_MS - 60_000);
      await pass();
      expect((await now(m.acct.liveKey, p.id)).status).toBe('detecting');
      t.clock.advance(2 * 60_000);
      await pass();
      const after = await now(m.acct.liveKey, p.id);
      expect(after.status).toBe('failed');
      expect(after.deposits).toEqual([expect.objectContaining({ tx_id: txid, status: 'failed' })]);
      // mined now, so the next run's customer does not spend its unconfirmed change
      await node.mine(1);
    });
    it('never mined and forgotten by the node (no block, not in the mempool), it fails an hour after it was seen', async () => {
      const m = await ltcMerchant(t);
      const p = await createLivePayment(t, m, 'LTC');
      // the deposit spends a coinbase output that has just matured: taking the tip away makes it
      // immature again, and the node drops the transaction from its mempool (a real "forgotten")
      await node.mine(1);
      const tip = await node.rpc<number>('getblockcount');
      const [coinbase] = (await node.rpc<{ tx: string[] }>('getblock', [await node.rpc<string>('getblockhash', [tip - 99]), 1])).tx;
      const vout = (await node.rpc<{ vout: Array<{ value: number; n: number }> }>('getrawtransaction', [coinbase, true])).vout.find((o) => o.value > 0)!;
      const change = Number((vout.value - Number(ltcText(owed(p))) - 0.001).toFixed(8));
      const raw = await node.rpc<string>('createrawtransaction', [[{ txid: coinbase, vout: vout.n }], [{ [p.deposit_address]: ltcText(owed(p)) }, { [await node.minerAddress()]: change }]]);
      const signed = await node.rpc<{ hex: string; complete: boolean }>('signrawtransactionwithwallet', [raw], 'miner');
      expect(signed.complete).toBe(true);
      const txid = await node.rpc<string>('sendrawtransaction', [signed.hex]);
      await pass();
      expect((await now(m.acct.liveKey, p.id)).deposits).toEqual([expect.objectContaining({ tx_id: txid, status: 'pending', confirmations: 0 })]);

      await node.rpc('invalidateblock', [await node.rpc<string>('getbestblockhash')]);
      expect(await node.rpc<string[]>('getrawmempool')).not.toContain(txid);
      expect(await node.rpc('getrawtransaction', [txid, true]).catch(() => null)).toBeNull();
      await pass();
      expect(await now(m.acct.liveKey, p.id)).toMatchObject({ status: 'detecting', confirmations: 0 });
      // the hour runs from when it was seen
      t.clock.advance(ORPHAN_TIMEOUT_MS - 60_000);
      await pass();
      expect((await now(m.acct.liveKey, p.id)).deposits).toEqual([expect.objectContaining({ tx_id: txid, status: 'pending' })]);
      t.clock.advance(2 * 60_000);
      await pass();
      const after = await now(m.acct.liveKey, p.id);
      expect(after.deposits).toEqual([expect.objectContaining({ tx_id: txid, status: 'failed' })]);
      expect(after.status).toBe('failed');
      // the chain moves on past the block taken
      await node.mine(1);
    });
  });
});
