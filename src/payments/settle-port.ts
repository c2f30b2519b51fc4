// What the settlement room needs of a payment once it closed: the settings it captured at
// creation and its final deposits (spec 1 "A payment paid in parts is settled once per coin, when
// it closes … While it is still short or another deposit of the same coin is confirming, final
// deposits wait."). Settling is idempotent per deposit, so all final deposits are offered each time.
import { asc, eq } from 'drizzle-orm';
import type { Executor } from '../platform/db/index.ts';
import type { SettleInput } from '../settlement/ports.ts';
import type { ConvertInto, SettlementSetting } from '../settlement/planner.ts';
import type { TokenSymbol } from '../tokens/index.ts';
import { deposits, payments } from './schema.ts';
import { isOpen } from './status.ts';

export async function settleInputOf(ex: Executor, paymentId: string): Promise<SettleInput | null> {
  const [p] = await ex.select().from(payments).where(eq(payments.id, paymentId)).limit(1);
  if (!p) return null;
  // In the order they arrived: a settlement's deposit_tx is its first deposit (spec 2 Settlement object).
  const all = await ex.select().from(deposits).where(eq(deposits.paymentId, paymentId)).orderBy(asc(deposits.seenAt), asc(deposits.id));
  // An open payment settles nothing yet; nor does a coin with a deposit still confirming.
  const confirming = new Set(all.filter((d) => d.status === 'pending').map((d) => d.token));
  const ready = isOpen(p.status as never) ? [] : all.filter((d) => d.status === 'final' && !confirming.has(d.token));
  return {
    payment: {
      id: p.id,
      merchant_id: p.merchantId,
      ...(p.storeId ? { store_id: p.storeId } : {}),
      livemode: p.livemode,
      token: p.token as TokenSymbol | '',
      ...(p.rateLocked ? { rate_locked: p.rateLocked } : {}),
      ...(p.token && p.networkFee !== null ? { network_fee: p.networkFee.toString() } : {}),
      fee_bps: p.settings.fee_bps,
      settlement: p.settings.settlement as SettlementSetting,
      convert_into: p.settings.convert_into as ConvertInto,
      ...(p.webhookUrl ? { webhook_url: p.webhookUrl } : {}),
      ...(p.depositAddress ? { deposit_address: p.depositAddress } : {}),
    },
    deposits: ready.map((d) => ({
      tx_id: d.txId, token: d.token as TokenSymbol, amount: d.amount, usd_value: d.usdValue, final_at: d.finalAt ?? d.seenAt,
    })),
  };
}
