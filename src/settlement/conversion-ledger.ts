// The ledger entries of a treasury conversion carried out (conversions.ts), or returned to the
// balance before it was: the planner's own entries, from the settlement's stored figures.
import type { TokenSymbol } from '../tokens/index.ts';
import { settlementReference, ledgerEntries, type LedgerEntryPlan } from './ledger.ts';
import type { SettlementRow } from './schema.ts';
import type { StoredConversion } from './json.ts';

/** The ledger of a conversion carried out: the planner's entries from the settlement's own figures. */
export function executedLedger(row: SettlementRow, c: StoredConversion): LedgerEntryPlan[] {
  return ledgerEntries({
    token: row.token as TokenSymbol,
    split: { amount: row.amount, service_fee: row.serviceFee, network_fee: row.networkFee, conversion_fee: row.conversionFee, net: row.net },
    usd: { usd_value: row.usdValue, service_fee_usd: row.serviceFeeUsd, network_fee_usd: row.networkFeeUsd, conversion_fee_usd: row.conversionFeeUsd, net_usd: row.netUsd },
    reference: settlementReference(row), converted: { to: c.to, amount_out: BigInt(c.amount_out) }, to_wallet: true,
  });
}

