// A block's transfers, from its transactions and their receipts (pure): native value of each
// successful transaction to an address, and the `Transfer(from, to, value)` logs of the watched
// token contracts. Transfers of one transaction to the same address and token are summed.
import type { TokenSymbol } from '../../../tokens/index.ts';
import type { ObservedTransfer } from '../../watch/types.ts';

/** keccak256("Transfer(address,address,uint256)"). */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

export interface RawTx { hash: string; from: string; to: string | null; value: bigint }
export interface RawBlock { number: bigint | null; hash: string | null; parentHash: string; timestamp: bigint; transactions: readonly RawTx[] }
export interface RawLog { address: string; topics: readonly string[]; data: string }
export interface RawReceipt { transactionHash: string; blockHash: string; status: 'success' | 'reverted'; logs: readonly RawLog[] }

/** An indexed address topic: 32 bytes whose first 12 are zero. */
const topicAddress = (topic: string | undefined): string | null =>
  topic && /^0x0{24}[0-9a-fA-F]{40}$/.test(topic) ? `0x${topic.slice(26).toLowerCase()}` : null;

export function blockTransfers(block: RawBlock, receipts: readonly RawReceipt[], native: TokenSymbol, contracts: ReadonlyMap<string, TokenSymbol>): ObservedTransfer[] {
  const ok = new Map(receipts.map((r) => [r.transactionHash, r]));
  const all: ObservedTransfer[] = [];
  const add = (t: ObservedTransfer) => all.push(t);
  for (const tx of block.transactions) {
    const receipt = ok.get(tx.hash);
    if (!receipt || receipt.status !== 'success') continue;
    const n = nativeTransfer(tx, native);
    if (n) add(n);
    for (const log of receipt.logs) {
      const t = logTransfer(tx.hash, log, contracts);
      if (t) add(t);
    }
  }
  return sumTransfers(all);
}

/** The native coin a transaction moves to an address (whether it succeeded is the receipt's to say). */
export function nativeTransfer(tx: RawTx, native: TokenSymbol): ObservedTransfer | null {
  return tx.to && tx.value > 0n ? { txId: tx.hash, to: tx.to.toLowerCase(), token: native, amount: tx.value, from: tx.from.toLowerCase() } : null;
}

/** A well-formed `Transfer` log of a watched contract, as a transfer of transaction `txId`; null otherwise. */
export function logTransfer(txId: string, log: RawLog, contracts: ReadonlyMap<string, TokenSymbol>): ObservedTransfer | null {
  const token = contracts.get(log.address.toLowerCase());
  if (!token || log.topics.length !== 3 || log.topics[0] !== TRANSFER_TOPIC) return null;
  const to = topicAddress(log.topics[2]);
  if (!to || !/^0x[0-9a-fA-F]{64}$/.test(log.data)) return null;
  const amount = BigInt(log.data);
  return amount > 0n ? { txId, to, token, amount, from: topicAddress(log.topics[1]) ?? undefined } : null;
}

/** Transfers summed per transaction, recipient and token. */
export function sumTransfers(transfers: readonly ObservedTransfer[]): ObservedTransfer[] {
  const sums = new Map<string, ObservedTransfer>();
  for (const t of transfers) {
    const key = `${t.txId}|${t.to}|${t.token}`;
    const seen = sums.get(key);
    if (seen) seen.amount += t.amount;
    else sums.set(key, { ...t });
  }
  return [...sums.values()];
}
