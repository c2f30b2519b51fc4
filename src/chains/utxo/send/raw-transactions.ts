// Previous transactions of a spend's inputs, read from the node in JSON-RPC batches rather than one
// call each: the whole transactions a legacy (P2PKH) input signs over, and the decoded ones whose
// output values make a spend's fee or are signed over again in a replacement. A spend of many
// inputs (a consolidation's, up to maxHotInputs) would otherwise cost a round trip per input, each
// time it is looked at; inputs from one transaction (change, a batch payment's outputs) read it once.
import { hex } from '@scure/base';
import { RpcError } from '../../rpc/json-rpc.ts';
import type { NodeTx } from '../node-shapes.ts';
import type { UtxoRpc } from '../rpc.ts';

/**
 * Transactions per batch request: a node's decoded transaction is a few kilobytes (tens for one of
 * many outputs; a raw one about half that), so a request stays well within its answer size and time limit.
 */
export const TXS_PER_REQUEST = 100;

/**
 * The raw bytes of transactions `txids` (each once), TXS_PER_REQUEST to a request (a consolidation of hundreds
 * of legacy inputs would otherwise be one answer of megabytes); a transaction the node does not give
 * fails the whole read.
 */
export async function rawTransactions(rpc: UtxoRpc, txids: readonly string[]): Promise<Map<string, Uint8Array>> {
  const unique = [...new Set(txids)];
  const out = new Map<string, Uint8Array>();
  for (let i = 0; i < unique.length; i += TXS_PER_REQUEST) {
    const part = unique.slice(i, i + TXS_PER_REQUEST);
    const answers = await rpc.batch(part.map((txid) => ({ method: 'getrawtransaction', params: [txid, 0] })));
    answers.forEach((a, j) => {
      if (a instanceof RpcError) throw a;
      if (typeof a !== 'string') throw new Error(`the node gave no transaction ${part[j]}`);
      out.set(part[j], hex.decode(a));
    });
  }
  return out;
}

/**
 * Transactions `txids` as the node decodes them (getrawtransaction verbose, with their hex), each
 * read once, TXS_PER_REQUEST to a request. One the node does not know (`maybe`'s null) is absent from the map;
 * any other refusal fails the whole read.
 */
export async function nodeTransactions(rpc: UtxoRpc, txids: readonly string[]): Promise<Map<string, NodeTx & { hex: string }>> {
  const unique = [...new Set(txids)];
  const answers = await rpc.maybeEach<NodeTx & { hex: string }>(unique.map((txid) => ({ method: 'getrawtransaction', params: [txid, 1] })), TXS_PER_REQUEST);
  const out = new Map<string, NodeTx & { hex: string }>();
  answers.forEach((a, j) => { if (a) out.set(unique[j], a); });
  return out;
}
