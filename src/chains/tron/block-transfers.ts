// The transfers of a Tron block as the watcher counts them (pure): TRX from the block's
// TransferContract transactions whose contractRet is SUCCESS, and TRC-20 tokens from the Transfer
// logs of the block's transaction infos, only for the configured contracts and only where the
// transaction succeeded (receipt SUCCESS, not FAILED). Several logs of one transaction to one
// address and token are summed. Addresses are hex (41…, lower case: TronReader.normalizeAddress),
// so a block is matched without a base58check encoding (two SHA-256 runs) per transfer. It runs
// over every transfer of a block, thousands on mainnet: plain string checks rather than regular
// expressions where they do.
import type { TokenSymbol } from '../../tokens/index.ts';
import type { AddressIndex } from '../watch/address-index.ts';
import type { ObservedTransfer } from '../watch/types.ts';

export const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

const HEX_ADDRESS = /^41[0-9a-f]{40}$/i;
const HEX20 = /^[0-9a-f]{40}$/i;
const ZERO_PAD = '0'.repeat(24);

/** The address in an indexed topic (32 bytes: 12 zero bytes, then 20); null when it is not one. */
function topicAddress(topic: unknown): string | null {
  if (typeof topic !== 'string' || topic.length !== 64 || !topic.startsWith(ZERO_PAD)) return null;
  const hex = topic.slice(24);
  return HEX20.test(hex) ? hex : null;
}

/** A 32-byte data word as a number; null when it is not one. */
function word(data: unknown): bigint | null {
  if (typeof data !== 'string' || data.length !== 64) return null;
  try {
    return BigInt(`0x${data}`);
  } catch {
    return null;
  }
}

type Obj = Record<string, unknown>;

const obj = (v: unknown): Obj | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : null);

/** The TRX transfers of a block's transactions. */
function trxTransfers(transactions: readonly unknown[], watched: AddressIndex | undefined, out: ObservedTransfer[]): void {
  for (const raw of transactions) {
    const tx = obj(raw);
    if (!tx || typeof tx.txID !== 'string') continue;
    const ret = Array.isArray(tx.ret) ? obj(tx.ret[0]) : null;
    if (ret?.contractRet !== 'SUCCESS') continue;
    const c = Array.isArray(obj(tx.raw_data)?.contract) ? obj((obj(tx.raw_data)!.contract as unknown[])[0]) : null;
    if (c?.type !== 'TransferContract') continue;
    const v = obj(obj(c.parameter)?.value);
    const to = String(v?.to_address ?? '');
    if (watched && !watched.hasSlice('', to, 0)) continue;
    const owner = String(v?.owner_address ?? '');
    const amount = v?.amount;
    if (!HEX_ADDRESS.test(to) || typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0) continue;
    // a TransferContract transaction moves TRX once
    out.push({ txId: tx.txID, to: to.toLowerCase(), token: 'TRX', amount: BigInt(amount), ...(HEX_ADDRESS.test(owner) ? { from: owner.toLowerCase() } : {}) });
  }
}

/**
 * `contracts`: token contract as the logs write it (20-byte hex without 41, lower case) → token.
 * `watched`: when given, only the transfers to its addresses are built. The receiving topic is
 * looked up as it stands (hex, no decoding, no string built), and a transfer is checked in full,
 * its amount read into a bigint and its addresses copied, only once it matched: most transfers of
 * a mainnet block go to addresses nobody watches.
 */
export function blockTransfers(
  transactions: readonly unknown[], infos: readonly unknown[], contracts: ReadonlyMap<string, TokenSymbol>, watched?: AddressIndex,
): ObservedTransfer[] {
  const out: ObservedTransfer[] = [];
  trxTransfers(transactions, watched, out);
  if (contracts.size === 0) return out;
  for (const raw of infos) {
    if (typeof raw !== 'object' || raw === null) continue;
    const info = raw as Obj;
    const logs = info.log;
    if (!Array.isArray(logs) || typeof info.id !== 'string') continue;
    if (info.result === 'FAILED' || obj(info.receipt)?.result !== 'SUCCESS') continue;
    // logs of one transaction to one address and token are summed (they are only this transaction's)
    const first = out.length;
    for (const l of logs) {
      if (typeof l !== 'object' || l === null) continue;
      const log = l as Obj;
      const topics = log.topics;
      if (!Array.isArray(topics) || topics.length !== 3) continue;
      const toTopic = topics[2];
      if (typeof toTopic !== 'string' || toTopic.length !== 64) continue;
      if (watched && !watched.hasSlice('41', toTopic, 24)) continue;
      const token = typeof log.address === 'string' ? contracts.get(log.address) ?? contracts.get(log.address.toLowerCase()) : undefined;
      if (!token) continue;
      if (topics[0] !== TRANSFER_TOPIC && String(topics[0]).toLowerCase() !== TRANSFER_TOPIC) continue;
      const to = topicAddress(toTopic);
      const from = topicAddress(topics[1]);
      const amount = word(log.data);
      if (!to || !from || amount === null || amount === 0n) continue;
      const toHex = `41${to.toLowerCase()}`;
      let same: ObservedTransfer | undefined;
      for (let i = first; i < out.length; i++) if (out[i].to === toHex && out[i].token === token) same = out[i];
      if (same) same.amount += amount;
      else out.push({ txId: info.id, to: toHex, token, amount, from: `41${from.toLowerCase()}` });
    }
  }
  return out;
}
