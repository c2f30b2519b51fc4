// What a direct settlement's `settlement` ledger entry took out of the merchant's balance, credited
// back (`settlement_return`): the operator's return of a failed one (failed-settlements.ts) and a
// waiting one whose destination is refused (refused-destination.ts) keep the money this way.
import type { Executor } from '../platform/db/index.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../tokens/index.ts';
import type { ServiceFeePort } from './ports.ts';
import type { SettlementRow } from './schema.ts';
import type { StoredConversion } from './json.ts';
import { finalServiceFee } from './settlement-writer.ts';
import { emitBalances, postEntries } from './balance-store.ts';
import { settlementReference } from './ledger.ts';

/** `row` as it stood (direct): its net, or what its conversion bought, back in the balance; its service fee final now. */
export async function creditBack(tx: Executor, row: SettlementRow, note: string, fees: ServiceFeePort | null, now: Date): Promise<void> {
  const c = row.conversion as StoredConversion | null;
  const token = (c ? c.to : row.token) as TokenSymbol;
  const key = { merchantId: row.merchantId, livemode: row.livemode };
  // a settlement whose real network fee was awaited keeps its quote: that fee is final now
  await finalServiceFee(tx, row, fees, now);
  await postEntries(tx, key, [{
    type: 'settlement_return', token, chain: TOKEN_DEFS[token].chain, amount: c ? BigInt(c.amount_out) : row.net,
    usd_amount: row.netUsd, reference: settlementReference(row), note,
  }], now, { paymentId: row.paymentId });
  await emitBalances(tx, key, now);
}
