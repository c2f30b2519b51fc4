// The ledger entries a settlement implies (spec 2, Balance and ledger): signed amounts per
// token, credits positive. Per token they sum to what stays in the balance: zero for money that
// left for a wallet, the credited amount for money kept in the balance.
import type { Decimal } from '../money/index.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../tokens/index.ts';
import type { Chain } from '../config.ts';
import type { CoinSplit, UsdSplit } from './fees.ts';

export const LEDGER_TYPES = [
  'payment_credit', 'fee', 'network_fee', 'conversion_fee', 'conversion_out', 'conversion_in',
  'settlement', 'settlement_return', 'payout_hold', 'payout_release', 'adjustment',
] as const;
export type LedgerType = (typeof LEDGER_TYPES)[number];

export interface LedgerEntryPlan {
  type: LedgerType;
  token: TokenSymbol;
  chain: Chain;
  /** Signed base units of `token`: credits positive, debits negative. */
  amount: bigint;
  /** Signed dollars, to the cent. */
  usd_amount: Decimal;
  /** `<payment id>:<transaction id>` of the (first) deposit. */
  reference: string;
  note?: string;
}

export interface LedgerMoves {
  token: TokenSymbol;
  split: CoinSplit;
  usd: UsdSplit;
  reference: string;
  /** What the net bought, when it was converted. */
  converted?: { to: TokenSymbol; amount_out: bigint };
  /** The money (net, or what it bought) left for the merchant's wallet rather than the balance. */
  to_wallet: boolean;
  note?: string;
}

export function ledgerEntries(m: LedgerMoves): LedgerEntryPlan[] {
  const out: LedgerEntryPlan[] = [];
  const add = (type: LedgerType, token: TokenSymbol, amount: bigint, usd: Decimal, note?: string): void => {
    if (amount === 0n) return;
    out.push({ type, token, chain: TOKEN_DEFS[token].chain, amount, usd_amount: usd, reference: m.reference, ...(note ? { note } : {}) });
  };
  const { split, usd, token } = m;
  add('payment_credit', token, split.amount, usd.usd_value);
  add('fee', token, -split.service_fee, usd.service_fee_usd.neg());
  add('network_fee', token, -split.network_fee, usd.network_fee_usd.neg());
  add('conversion_fee', token, -split.conversion_fee, usd.conversion_fee_usd.neg());
  let held: { token: TokenSymbol; amount: bigint } = { token, amount: split.net };
  if (m.converted && split.net > 0n) {
    add('conversion_out', token, -split.net, usd.net_usd.neg(), m.note);
    add('conversion_in', m.converted.to, m.converted.amount_out, usd.net_usd, m.note);
    held = { token: m.converted.to, amount: m.converted.amount_out };
  }
  if (m.to_wallet) add('settlement', held.token, -held.amount, usd.net_usd.neg());
  return out;
}

/** Signed sum per token of a list of entries (the balance change they record). */
export function sumByToken(entries: readonly LedgerEntryPlan[]): Map<TokenSymbol, bigint> {
  const sums = new Map<TokenSymbol, bigint>();
  for (const e of entries) sums.set(e.token, (sums.get(e.token) ?? 0n) + e.amount);
  for (const [t, v] of sums) if (v === 0n) sums.delete(t);
  return sums;
}

/** The ledger reference of a settlement's entries: `<payment id>:<transaction id>` of its (first) deposit. */
export const settlementReference = (row: { paymentId: string; depositTx: string }): string => `${row.paymentId}:${row.depositTx}`;
