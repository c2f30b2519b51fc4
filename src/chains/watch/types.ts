// The reading half of the chain layer: what a chain family implements so the chain-agnostic
// watcher (cursor, reorgs, catch-up, stale tips, the watched-address index, feeding DepositIntake)
// can follow its chain. A family only talks to its nodes and turns what they say into blocks of
// transfers; it never decides which transfers matter (the watcher matches them against the index)
// and never knows about payments.
import type { Chain } from '../../config.ts';
import type { TokenSymbol } from '../../tokens/index.ts';
import type { AddressIndex } from './address-index.ts';

/** A block (an XRP validated ledger) as the watcher keeps it in its cursor. */
export interface BlockRef {
  height: bigint;
  hash: string;
  /** Hash of the block before it: a mismatch with the cursor is a reorganisation. */
  parentHash: string;
  /** The block's own timestamp (stale-tip detection compares it with the wall clock). */
  time: Date;
}

/**
 * Value moved to one address (and XRP destination tag) in one transaction, in one token: outputs or
 * logs of one transaction to the same address and token are summed by the family. Only transfers
 * that moved value count: a reverted EVM transaction, a failed Tron contract call, an XRP payment
 * that is not tesSUCCESS are never reported.
 */
export interface ObservedTransfer {
  txId: string;
  /** The receiving address, in the form `normalizeAddress` gives. */
  to: string;
  /** XRP destination tag, when the payment carried one. */
  tag?: number;
  token: TokenSymbol;
  /** Base units of `token`: for XRP the delivered amount, never the requested one. */
  amount: bigint;
  /** The sender when one is meaningful (EVM, Tron, XRP; the first input's address for UTXO when known). */
  from?: string;
}

export interface ChainBlock extends BlockRef {
  /** Every transfer of a known token in the block; the watcher keeps those to watched addresses. */
  transfers: ObservedTransfer[];
  /**
   * Transfers whose transaction's outcome the family has not read yet, because reading it for the
   * whole block is not possible on this node (an EVM node without eth_getBlockReceipts): the
   * watcher keeps those to watched addresses and `succeeded` says which of them moved value.
   */
  unchecked?: { transfers: ObservedTransfer[]; succeeded(matched: ObservedTransfer[]): Promise<ObservedTransfer[]> };
}

/** Where a transaction the watcher saw stands now (reorgs: does an orphaned deposit come back?). */
export type TxState =
  | { kind: 'mined'; height: bigint; blockHash: string }
  /** Known to the node but not in a block (mempool). */
  | { kind: 'pending' }
  /**
   * Another transaction spending its inputs was mined (UTXO double spend): it can never be mined.
   * EVM and Tron: mined, but it failed (reverted, a reorganisation having mined it again in another
   * state): it moved nothing and never will.
   */
  | { kind: 'conflicted' }
  | { kind: 'unknown' };

export interface ChainReader {
  readonly chain: Chain;
  /**
   * What network the node serves (EVM chain id, Bitcoin-family `getblockchaininfo` chain, Tron
   * genesis hash, XRP network id). The watcher remembers the first answer: a different one later
   * marks the chain `down` and nothing is credited from that node.
   */
  network(): Promise<string>;
  /** The best block (XRP: the latest validated ledger). */
  head(): Promise<BlockRef>;
  /** The header of the best chain's block at `height`; null above the tip. */
  header(height: bigint): Promise<BlockRef | null>;
  /**
   * The best chain's block at `height` with its transfers; null above the tip. With `watched`, a
   * reader may leave out the transfers to addresses not in it (the watcher would drop them anyway):
   * a Tron block holds thousands of token transfers and building each costs more than the look-up.
   */
  block(height: bigint, watched?: AddressIndex): Promise<ChainBlock | null>;
  /** Transfers in the node's mempool (Bitcoin family: a deposit with 0 confirmations); others omit it. */
  pending?(): Promise<ObservedTransfer[]>;
  /**
   * Fills in `from` of matched transfers whose transaction did not name its sender (a Bitcoin-family
   * node before Core 23 writes no `prevout`), so a deposit carries its sender (spec 2 Deposit object:
   * trail deposits carry sender); one it cannot find keeps none. Optional.
   */
  senders?(transfers: ObservedTransfer[]): Promise<void>;
  /** Where a transaction stands now. */
  txState(txId: string): Promise<TxState>;
  /**
   * The height at or below which a block is final whatever its confirmation count (Tron: the
   * solidified block); families without such a point omit it.
   */
  finalHeight?(): Promise<bigint>;
  /**
   * The one form of an address used as the index key and in ObservedTransfer (EVM: lower case;
   * Tron: hex, 41…, so a block is matched without a base58 encoding per transfer; others: as the
   * chain writes it).
   */
  normalizeAddress(address: string): string;
  /** The address as payments hold it, from its normalized form; the normalized form itself when omitted. */
  chainAddress?(normalized: string): string;
}

/**
 * A wallet of the service's own whose arrivals the watcher reports rather than feeds as deposits:
 * a Bitcoin-family hot wallet, so money sent to it from elsewhere (an operator's top-up) is known
 * once its block is read, on every node (Dogecoin 1.14 cannot scan its UTXO set for it).
 */
export interface OwnWallet {
  /** Its address, in the form `normalizeAddress` gives. */
  address(): string;
  /** A transaction of a block of the best chain at `height` pays it. */
  arrived(txId: string, height: bigint): Promise<void>;
}
