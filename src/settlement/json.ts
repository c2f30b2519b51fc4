// The spec's objects (part 2) from rows: coin amounts as decimal strings of the coin, dollars
// without trailing zeros, optional fields absent rather than null.
import { formatUnits, formatUsd } from '../money/index.ts';
import { TOKEN_DEFS, isToken, type TokenSymbol } from '../tokens/index.ts';
import type { BalanceRow, LedgerRow, PayoutAddressRow, PayoutRow, SettlementRow } from './schema.ts';
import { iso } from '../accounts/index.ts';

const units = (token: string, v: bigint): string => formatUnits(v, isToken(token) ? TOKEN_DEFS[token].decimals : 0);
const opt = <T>(key: string, v: T | null | undefined): Record<string, T> => (v === null || v === undefined ? {} : { [key]: v });

export function balanceJson(b: BalanceRow): Record<string, unknown> {
  return { token: b.token, chain: b.chain, available: units(b.token, b.available), pending_payout: units(b.token, b.pendingPayout) };
}

export function ledgerEntryJson(e: LedgerRow): Record<string, unknown> {
  return {
    id: e.id, merchant_id: e.merchantId, type: e.type, token: e.token, chain: e.chain,
    amount: units(e.token, e.amount), usd_amount: formatUsd(e.usdAmount), reference: e.reference,
    ...opt('note', e.note), created_at: iso(e.createdAt),
  };
}

/** Stored conversion: amounts kept as base-unit strings, shown in their coins. */
export interface StoredConversion {
  via: string; from: TokenSymbol; amount_in: string; to: TokenSymbol; amount_out: string; status: string; note?: string;
  /** A treasury conversion (live swap/exchange): the sweep of the deposit (SWEEP_NONE: nothing to sweep), then the payout from the hot wallet. Not shown. */
  sweep?: string;
  payout?: string;
  /** Carried out by the service's treasury; its ledger entries are written when it is carried out. */
  treasury?: boolean;
}

/** A treasury conversion's deposit that needs no sweep: it arrived on the service's own address (XRP, rule 7). */
export const SWEEP_NONE = 'none';

export function settlementJson(s: SettlementRow): Record<string, unknown> {
  const c = s.conversion as StoredConversion | null;
  return {
    id: s.id, payment_id: s.paymentId, ...opt('store_id', s.storeId),
    deposit_tx: s.depositTx, ...(s.depositTxs && s.depositTxs.length > 1 ? { deposit_txs: s.depositTxs } : {}),
    livemode: s.livemode, mode: s.mode, token: s.token, chain: s.chain,
    ...(c ? {
      conversion: {
        via: c.via, from: c.from, amount_in: units(c.from, BigInt(c.amount_in)), to: c.to,
        amount_out: units(c.to, BigInt(c.amount_out)), status: c.status, ...opt('note', c.note),
      },
    } : {}),
    amount: units(s.token, s.amount), service_fee: units(s.token, s.serviceFee), network_fee: units(s.token, s.networkFee),
    conversion_fee: units(s.token, s.conversionFee), net: units(s.token, s.net),
    usd_value: formatUsd(s.usdValue), usd_rate: formatUsd(s.usdRate), service_fee_usd: formatUsd(s.serviceFeeUsd),
    network_fee_usd: formatUsd(s.networkFeeUsd), conversion_fee_usd: formatUsd(s.conversionFeeUsd), net_usd: formatUsd(s.netUsd),
    ...opt('destination', s.destination), ...opt('destination_tag', s.destinationTag), ...opt('tx_id', s.txId),
    status: s.status, ...opt('note', s.note),
    ...(s.awaitsUntil && s.status === 'pending' ? { awaits_address: { until: iso(s.awaitsUntil) } } : {}),
    created_at: iso(s.createdAt), ...opt('completed_at', iso(s.completedAt)),
  };
}

export function payoutAddressJson(a: PayoutAddressRow): Record<string, unknown> {
  return {
    id: a.id, merchant_id: a.merchantId, livemode: a.livemode, token: a.token, chain: a.chain, address: a.address,
    ...opt('tag', a.tag), label: a.label, default: a.isDefault, active_at: iso(a.activeAt),
    created_by: a.createdBy, created_at: iso(a.createdAt),
  };
}

export function payoutJson(p: PayoutRow): Record<string, unknown> {
  return {
    id: p.id, merchant_id: p.merchantId, livemode: p.livemode, token: p.token, chain: p.chain,
    from_token: p.fromToken, from_chain: p.fromChain,
    amount: units(p.fromToken, p.amount), network_fee: units(p.fromToken, p.networkFee), send_amount: units(p.fromToken, p.sendAmount),
    amount_usd: formatUsd(p.amountUsd), network_fee_usd: formatUsd(p.networkFeeUsd), send_amount_usd: formatUsd(p.sendAmountUsd),
    usd_rate: formatUsd(p.usdRate), address_id: p.addressId, address: p.address, ...opt('tag', p.tag),
    status: p.status, requested_by: p.requestedBy, ...opt('tx_id', p.txId), ...opt('review_note', p.reviewNote),
    created_at: iso(p.createdAt), updated_at: iso(p.updatedAt), ...opt('approved_at', iso(p.approvedAt)),
    ...opt('rejected_at', iso(p.rejectedAt)), ...opt('sent_at', iso(p.sentAt)), ...opt('canceled_at', iso(p.canceledAt)),
  };
}
