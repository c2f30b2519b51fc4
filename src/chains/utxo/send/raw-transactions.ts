// Whole previous transactions a legacy (P2PKH) input signs over, read from the node in one JSON-RPC
// batch rather than one call each.
import { hex } from '@scure/base';
import { RpcError } from '../../rpc/json-rpc.ts';
import type { UtxoRpc } from '../rpc.ts';

/** The raw bytes of transactions `txids` (each once), read in one batch request; a transaction the node does not give fails the whole read. */
export async function rawTransactions(rpc: UtxoRpc, txids: readonly string[]): Promise<Map<string, Uint8Array>> {
  const unique = [...new Set(txids)];
  const answers = await rpc.batch(unique.map((txid) => ({ method: 'getrawtransaction', params: [txid, 0] })));
  const out = new Map<string, Uint8Array>();
  answers.forEach((a, i) => {
    if (a instanceof RpcError) throw a;
    if (typeof a !== 'string') throw new Error(`the node gave no transaction ${unique[i]}`);
    out.set(unique[i], hex.decode(a));
  });
  return out;
}
