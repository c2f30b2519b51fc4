// A Litecoin hot wallet of many small outputs (the service's shares of direct settlements, change)
// on a real node (regtest): one transaction spends at most as many of them as fit in the node's
// standard transaction size. A transfer the node would refuse as too large (`tx-size`) for ever is
// not signed: it waits for funds saying why, and larger outputs pay it, largest first.
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
import { scriptOfAddress } from '../../src/chains/utxo/index.ts';
import { UTXO_COINS } from '../../src/chains/utxo/coins.ts';
import { signSpend } from '../../src/chains/utxo/send/sign.ts';
import { UTXO_NETWORKS } from '../../src/chains/addresses/networks.ts';
import { maxHotInputs } from '../../src/chains/utxo/send/family.ts';
import { WalletKeys } from '../../src/chains/wallets/index.ts';

const fresh = () => encodeSegwit('rltc', 0, crypto.randomBytes(20));
const SMALL = 100_000n;
const COUNT = 1_600;

describe.runIf(litecoindOrSkip())('LTC hot wallet of many small outputs', () => {
  let node: LitecoinNode;
  beforeAll(async () => { node = await startLitecoind(); }, 60_000);
  afterAll(async () => { await node?.close(); setLiveNetwork('litecoin', 'main'); });

  describeEachDb('inputs within the standard size', (h) => {
    let t: LtcApp;
    let hot: string;
    beforeAll(async () => {
      t = await startLtcApp(h.db(), node);
      hot = (await hotWallet(t, 'litecoin')).address as string;
    });
    afterAll(async () => { await t?.close(); });

    const rowOf = async (id: string): Promise<TransferRow> => (await h.db().orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.id, id)))[0];
    const sendFromHot = (to: string, amount: bigint) =>
      t.platform.db.transaction((tx) => t.services.sending.transfers.port.send(tx, { chain: 'litecoin', token: 'LTC', to, amount, purpose: 'payout', reference: `ref_${crypto.randomUUID()}` }));

    /** COUNT outputs of SMALL to the hot wallet in one transaction (signed with its key: a node wallet refuses one address twice), mined. */
    const manySmall = async () => {
      const funding = await node.pay(hot, '2.0');
      await node.mine(1);
      const prev = await node.rpc<{ vout: Array<{ n: number; value: number; scriptPubKey: { addresses: string[] } }> }>('getrawtransaction', [funding, true]);
      const out = prev.vout.find((v) => v.scriptPubKey.addresses?.[0] === hot)!;
      const regtest = UTXO_NETWORKS.litecoin.regtest;
      const script = scriptOfAddress(regtest, hot)!;
      const key = new WalletKeys(t.config.walletMnemonic).hotPrivateKey('litecoin', true);
      const outs = Array.from({ length: COUNT }, () => ({ script, amount: SMALL }));
      // the rest to an address of someone else's, less a fee of about 2 litoshi a vbyte
      outs.push({ script: scriptOfAddress(regtest, fresh())!, amount: 200_000_000n - SMALL * BigInt(COUNT) - 120_000n });
      const spend = await signSpend(UTXO_COINS.litecoin, [{ txid: funding, vout: out.n, amount: 200_000_000n, script }], outs, key);
      await node.rpc('sendrawtransaction', [spend.raw]);
      await node.mine(1);
    };

    it('a payout that needs more small outputs than one standard transaction holds waits for funds saying why, and is paid from larger ones, largest first', async () => {
      await manySmall();
      const to = fresh();
      // nearly all of them: more than one transaction may spend
      const amount = 150_000_000n;
      const id = await sendFromHot(to, amount);
      t.clock.advance(61_000); // past the UTXO set scan's interval: the outputs are found
      await t.services.sending.transfers.runOnce();
      const row = await rowOf(id);
      const max = maxHotInputs(UTXO_COINS.litecoin);
      expect(max).toBeLessThan(COUNT);
      // nothing was signed that the node would refuse as too large
      expect(await h.db().orm.select().from(outgoingAttempts).where(eq(outgoingAttempts.transferId, id))).toEqual([]);
      expect(row).toMatchObject({ status: 'recorded', waiting: 'funds' });
      expect(row.lastError).toBe(`the litecoin hot wallet holds ${SMALL * BigInt(COUNT)} base units in ${COUNT} spendable outputs, but one transaction spends at most ${max} of them (the node's standard size), worth ${SMALL * BigInt(max)}; ${amount} and the network fee are needed`);
      expect((await hotWallet(t, 'litecoin')).needs_funding).toBe(true);
      // the operator tops it up with one larger output: the payout spends it with the largest small ones
      await node.pay(hot, '1.45');
      await node.mine(1);
      t.clock.advance(61_000);
      await driveLtc(t, async () => (await rowOf(id)).status === 'final');
      expect(await unspentAt(node, to)).toBe(amount);
      const paid = await rowOf(id);
      const tx = await node.rpc<{ vin: unknown[]; vsize: number }>('getrawtransaction', [paid.txId, true]);
      // the top-up and about sixty small ones, not the oldest small ones first
      expect(tx.vin.length).toBeLessThan(100);
      expect(tx.vsize).toBeLessThan(100_000);
    }, 120_000);
  });
});
