// The XRP Ledger for the watcher: validated ledgers only (a ledger rippled does not call validated
// is above the tip, whatever it holds), XRP payments that succeeded (`tesSUCCESS`), credited with
// `meta.delivered_amount` (a partial payment never counts for its requested Amount/DeliverMax),
// with their destination tag. Blocks are ledgers: height is the ledger index.
import type { ChainReader, BlockRef, ChainBlock, ObservedTransfer, TxState } from '../watch/types.ts';
import { XrpNodeError, type XrpResult, type XrpRpc } from './rpc.ts';
import { paymentsOfLedger, rippleTime } from './ledger-payments.ts';

const object = (v: unknown, what: string): Record<string, unknown> => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`rippled answered without ${what}`);
  return v as Record<string, unknown>;
};

/** The header of a ledger answer (`ledger` method), checked. */
export function ledgerRef(r: XrpResult): BlockRef {
  const l = object(r.ledger, 'a ledger');
  const index = Number(l.ledger_index ?? r.ledger_index);
  const hash = String(l.ledger_hash ?? r.ledger_hash ?? '');
  const parent = String(l.parent_hash ?? '');
  const close = Number(l.close_time);
  if (!Number.isSafeInteger(index) || index <= 0 || !/^[0-9A-F]{64}$/i.test(hash) || !/^[0-9A-F]{64}$/i.test(parent) || !Number.isFinite(close)) {
    throw new Error('rippled answered a ledger without index, hash, parent or close time');
  }
  return { height: BigInt(index), hash: hash.toUpperCase(), parentHash: parent.toUpperCase(), time: rippleTime(close) };
}

export class XrpReader implements ChainReader {
  readonly chain = 'xrp' as const;
  readonly #rpc: XrpRpc;

  constructor(rpc: XrpRpc) {
    this.#rpc = rpc;
  }

  async network(): Promise<string> {
    const r = await this.#rpc.request('server_info');
    const info = object(r.info, 'server info');
    // rippled leaves network_id out on mainnet (0)
    return String(info.network_id ?? 0);
  }

  async head(): Promise<BlockRef> {
    const r = await this.#rpc.request('ledger', { ledger_index: 'validated' });
    if (r.validated !== true) throw new Error('rippled has no validated ledger');
    return ledgerRef(r);
  }

  async #ledger(height: bigint, transactions: boolean): Promise<XrpResult | null> {
    try {
      const r = await this.#rpc.request('ledger', { ledger_index: Number(height), ...(transactions ? { transactions: true, expand: true } : {}) });
      return r.validated === true ? r : null;
    } catch (err) {
      if (err instanceof XrpNodeError && err.error === 'lgrNotFound') return null;
      throw err;
    }
  }

  async header(height: bigint): Promise<BlockRef | null> {
    const r = await this.#ledger(height, false);
    return r ? ledgerRef(r) : null;
  }

  async block(height: bigint): Promise<ChainBlock | null> {
    const r = await this.#ledger(height, true);
    if (!r) return null;
    const ref = ledgerRef(r);
    const txs = object(r.ledger, 'a ledger').transactions;
    if (!Array.isArray(txs)) throw new Error('rippled answered a ledger without its transactions');
    const transfers: ObservedTransfer[] = paymentsOfLedger(txs);
    return { ...ref, transfers };
  }

  async txState(txId: string): Promise<TxState> {
    try {
      const r = await this.#rpc.request('tx', { transaction: txId });
      if (r.validated === true && typeof r.ledger_index === 'number') {
        return { kind: 'mined', height: BigInt(r.ledger_index), blockHash: String(r.ledger_hash ?? '').toUpperCase() };
      }
      return { kind: 'pending' };
    } catch (err) {
      if (err instanceof XrpNodeError && err.error === 'txnNotFound') return { kind: 'unknown' };
      throw err;
    }
  }

  normalizeAddress(address: string): string {
    return address.trim();
  }
}
