// The unspent outputs a deposit address holds, found from the deposits the watcher recorded for
// its payment (their transactions) and checked against the node's UTXO set (`gettxout`, confirmed
// only). No scan of the whole UTXO set and no node wallet: each deposit transaction is read once,
// all of them in one batch request, and their outputs to the address in another.
import { and, eq } from 'drizzle-orm';
import type { Chain } from '../../../config.ts';
import type { Database } from '../../../platform/db/index.ts';
import { deposits, payments } from '../../../payments/index.ts';
import { hex } from '@scure/base';
import type { UtxoNetwork } from '../../addresses/index.ts';
import { coinsToBaseUnits } from '../coins.ts';
import { scriptAddress } from '../node-shapes.ts';
import type { UtxoRpc } from '../rpc.ts';
import { RpcError } from '../../rpc/json-rpc.ts';
import { nodeTransactions } from './raw-transactions.ts';
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

/**
 * gettxout calls per batch request: each answer is a few hundred bytes, so a deposit address paid
 * by hundreds of transactions still takes one request.
 */
const OUTPUTS_PER_REQUEST = 500;

/**
 * Confirmed unspent outputs to `address` among `txs`, in their order (oldest first). Read in two
 * steps rather than a round trip per transaction and per output: the transactions in one batch
 * request (nodeTransactions: 100 to a request), then every output they pay to the address in one
 * gettxout batch (OUTPUTS_PER_REQUEST to a request).
 */
export async function unspentOutputs(rpc: UtxoRpc, network: UtxoNetwork, address: string, txs: ReadonlyArray<{ txId: string; block: number | null }>, normalize: (a: string) => string): Promise<UnspentInput[]> {
  // a transaction listed twice (the deposits of two payments) counts once, with its first row's block
  const unique = new Map<string, number | null>();
  for (const { txId, block } of txs) if (!unique.has(txId)) unique.set(txId, block);
  const found = await nodeTransactions(rpc, [...unique.keys()]);
  const candidates: Array<{ txId: string; block: number | null; vout: number; amount: bigint; script: string; raw: string }> = [];
  for (const [txId, block] of unique) {
    const tx = found.get(txId);
    // unknown to the node, or not yet mined
    if (!tx || !tx.confirmations) continue;
    for (const v of tx.vout) {
      if (v.value === undefined || !v.scriptPubKey?.hex) continue;
      const to = scriptAddress(network, v.scriptPubKey);
      if (!to || normalize(to) !== address) continue;
      candidates.push({ txId, block, vout: v.n, amount: coinsToBaseUnits(v.value), script: v.scriptPubKey.hex, raw: tx.hex });
    }
  }
  // confirmed outputs only (no mempool): one the node no longer has is spent; any refusal fails the read
  const coins: unknown[] = [];
  for (let i = 0; i < candidates.length; i += OUTPUTS_PER_REQUEST) {
    const answers = await rpc.batch(candidates.slice(i, i + OUTPUTS_PER_REQUEST).map((c) => ({ method: 'gettxout', params: [c.txId, c.vout, false] })));
    for (const a of answers) {
      if (a instanceof RpcError) throw a;
      coins.push(a);
    }
  }
  const out: UnspentInput[] = [];
  candidates.forEach(({ txId, block, vout, amount, script, raw }, i) => {
    const coin = coins[i] as { confirmations: number } | null;
    if (!coin) return;
    out.push({
      txid: txId, vout, amount, height: block ?? Number.MAX_SAFE_INTEGER - coin.confirmations,
      script: hex.decode(script), prevRaw: hex.decode(raw),
    });
  });
  return out;
}
