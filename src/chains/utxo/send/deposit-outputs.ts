// The unspent outputs a deposit address holds, found from the deposits the watcher recorded for
// its payment (their transactions) and checked against the node's UTXO set (`gettxout`, confirmed
// only). No scan of the whole UTXO set and no node wallet: each deposit transaction is read once.
import { and, eq } from 'drizzle-orm';
import type { Chain } from '../../../config.ts';
import type { Database } from '../../../platform/db/index.ts';
import { deposits, payments } from '../../../payments/index.ts';
import { hex } from '@scure/base';
import type { UtxoNetwork } from '../../addresses/index.ts';
import { coinsToBaseUnits } from '../coins.ts';
import type { NodeTx } from '../node-shapes.ts';
import { scriptAddress } from '../node-shapes.ts';
import type { UtxoRpc } from '../rpc.ts';
import type { Unspent } from './coin-select.ts';
import type { SpendInput } from './sign.ts';

/** The transactions that paid a deposit address (the deposits of its payment), with their block when known. */
export type DepositTxs = (chain: Chain, address: string) => Promise<Array<{ txId: string; block: number | null }>>;

export function depositTxsFromDb(db: Database): DepositTxs {
  return async (chain, address) => {
    const rows = await db.orm.selectDistinct({ txId: deposits.txId, block: deposits.block }).from(deposits)
      .innerJoin(payments, eq(payments.id, deposits.paymentId))
      .where(and(eq(payments.chain, chain), eq(payments.depositAddress, address), eq(deposits.simulated, false)));
    return rows;
  };
}

export type UnspentInput = Unspent & SpendInput;

/** Confirmed unspent outputs to `address` among `txs`, oldest first. */
export async function unspentOutputs(rpc: UtxoRpc, network: UtxoNetwork, address: string, txs: ReadonlyArray<{ txId: string; block: number | null }>, normalize: (a: string) => string): Promise<UnspentInput[]> {
  const out: UnspentInput[] = [];
  const seen = new Set<string>();
  for (const { txId, block } of txs) {
    if (seen.has(txId)) continue;
    seen.add(txId);
    const tx = await rpc.maybe<NodeTx & { hex: string }>('getrawtransaction', [txId, 1]);
    if (!tx || !tx.confirmations) continue;
    for (const v of tx.vout) {
      if (v.value === undefined || !v.scriptPubKey?.hex) continue;
      const to = scriptAddress(network, v.scriptPubKey);
      if (!to || normalize(to) !== address) continue;
      const coin = await rpc.call<{ confirmations: number } | null>('gettxout', [txId, v.n, false]);
      if (!coin) continue;
      out.push({
        txid: txId, vout: v.n, amount: coinsToBaseUnits(v.value), height: block ?? Number.MAX_SAFE_INTEGER - coin.confirmations,
        script: hex.decode(v.scriptPubKey.hex), prevRaw: hex.decode(tx.hex),
      });
    }
  }
  return out;
}
