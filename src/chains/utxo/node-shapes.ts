// Transactions as Bitcoin-family nodes write them in JSON (getblock verbosity 2, getrawtransaction
// verbose), reduced to what the reader needs, across versions:
//  - Bitcoin Core 22+: `scriptPubKey.address`; verbosity 3 (23+) adds `vin[].prevout`.
//  - Litecoin 0.21: `scriptPubKey.addresses` (an array), `ismweb` on inputs and outputs, and from
//    block 432 on regtest an MWEB transaction at the end of each block whose outputs have no script.
//  - Dogecoin 1.14: `addresses` too, transactions only through getrawtransaction.
// Addresses are the node's address fields, or decoded from `scriptPubKey.hex` (scripts.ts) where
// it wrote none.
import type { TokenSymbol } from '../../tokens/index.ts';
import type { UtxoNetwork } from '../addresses/index.ts';
import type { ObservedTransfer } from '../watch/types.ts';
import { coinsToBaseUnits, type CoinAmount } from './coins.ts';
import { addressOfScript } from './scripts.ts';

export interface NodeScript { hex?: string; address?: string; addresses?: string[]; type?: string }
export interface NodeVout { value?: CoinAmount; n: number; scriptPubKey?: NodeScript; ismweb?: boolean }
export interface NodeVin { txid?: string; vout?: number; coinbase?: string; prevout?: { value?: CoinAmount; scriptPubKey?: NodeScript }; ismweb?: boolean }
export interface NodeTx {
  txid: string;
  vin: NodeVin[];
  vout: NodeVout[];
  /** getrawtransaction: the block holding it, with its confirmations (absent: mempool; 0 or absent with a hash: a block off the best chain). */
  blockhash?: string;
  confirmations?: number;
}
/** getrawtransaction's answer is a transaction of a block of the best chain (not the mempool's, not an orphaned block's). */
export const inBestChain = (tx: NodeTx | null | undefined): tx is NodeTx & { blockhash: string } => !!tx?.blockhash && (tx.confirmations ?? 0) > 0;

export interface NodeBlockHeader { hash: string; height: number; previousblockhash?: string; time: number }
export interface NodeBlock extends NodeBlockHeader {
  /** Full transactions (verbosity 2) or their ids (verbosity 1 / `true`). */
  tx: Array<NodeTx | string>;
}

/**
 * The address of a script: the node's own address field where it wrote one (Bitcoin Core's
 * `address`, a single entry of `addresses`), else decoded from the script's bytes. The node's text
 * is taken as it is because encoding an address costs far more than reading one: a block of 5,000
 * outputs is scanned in a few milliseconds instead of about a hundred.
 */
export function scriptAddress(network: UtxoNetwork, script: NodeScript | undefined): string | null {
  if (!script) return null;
  // Litecoin 0.21 writes a 1-of-1 bare multisig's key as a P2PKH address in `addresses`, Dogecoin
  // 1.14 a bare pubkey's too: the service spends such an address with a P2PKH signature, which
  // cannot spend these scripts, so they pay no address (the node's `type` says which they are).
  if (script.type === 'multisig' || script.type === 'pubkey') return null;
  if (script.address) return script.address;
  if (script.addresses?.length === 1) return script.addresses[0];
  return script.hex ? addressOfScript(network, script.hex) : null;
}

/** Outputs of one transaction above which outputs to one address are summed through a Map (below, a linear look is cheaper). */
const LINEAR_MERGE_MAX = 16;

/**
 * Value per receiving address in one transaction (outputs to one address summed), MWEB and
 * unreadable outputs left out (a coinbase transaction's too), appended to `into`. A block's scan allocates one object per
 * transfer and nothing per output besides its amount: no Map or array per transaction (a linear
 * merge over the few outputs a transaction usually has), the sender's address decoded only when
 * the transaction pays someone.
 */
export function transfersOfTx(tx: NodeTx, network: UtxoNetwork, token: TokenSymbol, normalize: (a: string) => string, into: ObservedTransfer[] = []): ObservedTransfer[] {
  // A coinbase output cannot be spent before 100 confirmations (consensus), far past any chain's
  // confirmation count: counted, a payment would be final with money no settlement can move yet,
  // and a reorganisation before then erases it for good. It is not a deposit.
  if (tx.vin.length > 0 && tx.vin[0].coinbase !== undefined) return into;
  const start = into.length;
  const vout = tx.vout;
  const sums = vout.length > LINEAR_MERGE_MAX ? new Map<string, ObservedTransfer>() : null;
  let from: string | null | undefined;
  for (let k = 0; k < vout.length; k++) {
    const out = vout[k];
    if (out.ismweb || out.value === undefined || out.value === 0) continue;
    const address = scriptAddress(network, out.scriptPubKey);
    if (!address) continue;
    const to = normalize(address);
    const amount = coinsToBaseUnits(out.value);
    let same: ObservedTransfer | undefined;
    if (sums) same = sums.get(to);
    else for (let i = start; i < into.length; i++) if (into[i].to === to) { same = into[i]; break; }
    if (same) { same.amount += amount; continue; }
    if (from === undefined) {
      const first = tx.vin[0]?.prevout ? scriptAddress(network, tx.vin[0].prevout.scriptPubKey) : null;
      from = first ? normalize(first) : null;
    }
    const t: ObservedTransfer = from === null ? { txId: tx.txid, to, token, amount } : { txId: tx.txid, to, token, amount, from };
    into.push(t);
    sums?.set(to, t);
  }
  return into;
}

/** Every transfer of a block's transactions, in order (the reader's scan, and the bench's). */
export function blockTransfers(txs: readonly NodeTx[], network: UtxoNetwork, token: TokenSymbol, normalize: (a: string) => string): ObservedTransfer[] {
  const out: ObservedTransfer[] = [];
  for (let i = 0; i < txs.length; i++) transfersOfTx(txs[i], network, token, normalize, out);
  return out;
}

/** The outpoints a transaction spends (none for a coinbase or an MWEB input). */
export function inputsOf(tx: NodeTx): Array<{ txid: string; vout: number }> {
  return tx.vin.filter((v) => v.txid !== undefined && v.vout !== undefined && !v.coinbase && !v.ismweb).map((v) => ({ txid: v.txid!, vout: v.vout! }));
}
