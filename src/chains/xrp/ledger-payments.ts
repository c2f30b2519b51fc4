// The XRP payments of a validated ledger as the watcher counts them (pure): a Payment whose result
// is tesSUCCESS, in XRP (drops as a string; issued currencies are not a token here), credited with
// meta.delivered_amount and never with Amount/DeliverMax, which a partial payment only asks for.
// Both of rippled's shapes are read: API v2 (`tx_json` + `meta` + `hash`) and v1 (flat, `metaData`).
import type { ObservedTransfer } from '../watch/types.ts';

/** Seconds from the Unix epoch to the Ripple epoch (2000-01-01T00:00:00Z). */
export const RIPPLE_EPOCH_S = 946_684_800;
export const rippleTime = (seconds: number): Date => new Date((seconds + RIPPLE_EPOCH_S) * 1000);

const DROPS = /^\d{1,20}$/;

/** One expanded ledger transaction; null when it moved no XRP to anyone. */
export function paymentOf(entry: unknown): ObservedTransfer | null {
  if (typeof entry !== 'object' || entry === null) return null;
  const e = entry as Record<string, unknown>;
  const tx = (typeof e.tx_json === 'object' && e.tx_json !== null ? e.tx_json : e) as Record<string, unknown>;
  const meta = (e.meta ?? e.metaData) as Record<string, unknown> | undefined;
  if (tx.TransactionType !== 'Payment' || typeof meta !== 'object' || meta === null) return null;
  if (meta.TransactionResult !== 'tesSUCCESS') return null;
  // 'unavailable' (ledgers before 2014) and issued-currency objects are not XRP credits
  const delivered = meta.delivered_amount;
  if (typeof delivered !== 'string' || !DROPS.test(delivered)) return null;
  const amount = BigInt(delivered);
  const hash = String(e.hash ?? tx.hash ?? '');
  if (amount === 0n || typeof tx.Destination !== 'string' || !/^[0-9A-F]{64}$/i.test(hash)) return null;
  const tag = tx.DestinationTag;
  return {
    txId: hash.toUpperCase(), to: tx.Destination, token: 'XRP', amount,
    ...(typeof tag === 'number' && Number.isInteger(tag) && tag >= 0 ? { tag } : {}),
    ...(typeof tx.Account === 'string' ? { from: tx.Account } : {}),
  };
}

export function paymentsOfLedger(entries: readonly unknown[]): ObservedTransfer[] {
  const out: ObservedTransfer[] = [];
  for (const e of entries) {
    const p = paymentOf(e);
    if (p) out.push(p);
  }
  return out;
}
