// The transfers of a Tron block as the watcher counts them (pure): TRX from the block's
// TransferContract transactions whose contractRet is SUCCESS, and TRC-20 tokens from the Transfer
// logs of the block's transaction infos, only for the configured contracts and only where the
// transaction succeeded (receipt SUCCESS, not FAILED). Several logs of one transaction to one
// address and token are summed. Addresses are base58check (T…).
import type { TokenSymbol } from '../../tokens/index.ts';
import type { ObservedTransfer } from '../watch/types.ts';
import { tronBase58 } from './rpc.ts';

export const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

const HEX_ADDRESS = /^41[0-9a-f]{40}$/i;
const TOPIC = /^[0-9a-f]{64}$/i;

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : null);

/**
 * `contracts`: token contract as the logs write it (20-byte hex without 41, lower case) → token.
 * Keys are lower-case hex; values the token symbol.
 */
export function blockTransfers(transactions: readonly unknown[], infos: readonly unknown[], contracts: ReadonlyMap<string, TokenSymbol>): ObservedTransfer[] {
  const out: ObservedTransfer[] = [];
  const index = new Map<string, ObservedTransfer>();
  const add = (t: ObservedTransfer) => {
    const key = `${t.txId}:${t.to}:${t.token}`;
    const seen = index.get(key);
    if (seen) seen.amount += t.amount;
    else {
      index.set(key, t);
      out.push(t);
    }
  };
  for (const raw of transactions) {
    const tx = obj(raw);
    if (!tx || typeof tx.txID !== 'string') continue;
    const ret = Array.isArray(tx.ret) ? obj(tx.ret[0]) : null;
    if (ret?.contractRet !== 'SUCCESS') continue;
    const c = Array.isArray(obj(tx.raw_data)?.contract) ? obj((obj(tx.raw_data)!.contract as unknown[])[0]) : null;
    if (c?.type !== 'TransferContract') continue;
    const v = obj(obj(c.parameter)?.value);
    const to = String(v?.to_address ?? '');
    const owner = String(v?.owner_address ?? '');
    const amount = v?.amount;
    if (!HEX_ADDRESS.test(to) || typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0) continue;
    add({ txId: tx.txID, to: tronBase58(to), token: 'TRX', amount: BigInt(amount), ...(HEX_ADDRESS.test(owner) ? { from: tronBase58(owner) } : {}) });
  }
  if (contracts.size === 0) return out;
  for (const raw of infos) {
    const info = obj(raw);
    if (!info || typeof info.id !== 'string' || !Array.isArray(info.log)) continue;
    if (info.result === 'FAILED' || obj(info.receipt)?.result !== 'SUCCESS') continue;
    for (const l of info.log) {
      const log = obj(l);
      const token = contracts.get(String(log?.address ?? '').toLowerCase());
      if (!log || !token) continue;
      const topics = log.topics;
      if (!Array.isArray(topics) || topics.length !== 3 || !topics.every((t) => typeof t === 'string' && TOPIC.test(t))) continue;
      if ((topics[0] as string).toLowerCase() !== TRANSFER_TOPIC) continue;
      const data = String(log.data ?? '');
      if (!TOPIC.test(data)) continue;
      const amount = BigInt(`0x${data}`);
      if (amount === 0n) continue;
      add({ txId: info.id, to: tronBase58((topics[2] as string).slice(24)), token, amount, from: tronBase58((topics[1] as string).slice(24)) });
    }
  }
  return out;
}
