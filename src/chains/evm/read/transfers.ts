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
  const sums = new Map<string, ObservedTransfer>();
  const add = (t: ObservedTransfer) => {
    const key = `${t.txId}|${t.to}|${t.token}`;
    const seen = sums.get(key);
    if (seen) seen.amount += t.amount;
    else sums.set(key, { ...t });
  };
  for (const tx of block.transactions) {
    const receipt = ok.get(tx.hash);
    if (!receipt || receipt.status !== 'success') continue;
    if (tx.to && tx.value > 0n) add({ txId: tx.hash, to: tx.to.toLowerCase(), token: native, amount: tx.value, from: tx.from.toLowerCase() });
    for (const log of receipt.logs) {
      const token = contracts.get(log.address.toLowerCase());
      if (!token || log.topics.length !== 3 || log.topics[0] !== TRANSFER_TOPIC) continue;
      const to = topicAddress(log.topics[2]);
      if (!to || !/^0x[0-9a-fA-F]{64}$/.test(log.data)) continue;
      const amount = BigInt(log.data);
      if (amount > 0n) add({ txId: tx.hash, to, token, amount, from: topicAddress(log.topics[1]) ?? undefined });
    }
  }
  return [...sums.values()];
}
