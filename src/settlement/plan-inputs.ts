// What planning a settlement reads at a moment, one way for the first plan of a payment's deposits
// (executor.ts settlePayment), a plan made again when its time comes (replanDue) and a conversion
// refused at execution (conversions.ts): the market of the payment's mode, the merchant's payout
// addresses in force (with those no payout may go to, live), in live mode the USDT balance,
// locked for the transaction (test mode has none), and whether the merchant is suspended (no
// automatic payout then).
import { eq } from 'drizzle-orm';
import type { Executor } from '../platform/db/index.ts';
import type { MarketData, MarketSource } from '../market/index.ts';
import { BALANCE_TOKEN, marketQuotes, type PlanInput } from './planner.ts';
import type { OwnAddressCheck, SettleDeposit, SettlePayment } from './ports.ts';
import { addressesInForce } from './address-store.ts';
import { lockBalance } from './balance-store.ts';
import { planDeposit, planPayment } from './stored-input.ts';
import { checkedAddresses } from './refused-address.ts';
import { merchants } from '../accounts/schema.ts';

export async function planInputs(
  tx: Executor, payment: SettlePayment, deposits: readonly SettleDeposit[], deps: { market: MarketSource; ownAddresses: OwnAddressCheck }, now: Date,
): Promise<{ data: MarketData; input: PlanInput }> {
  const data = deps.market.snapshot(payment.livemode);
  const addresses = await checkedAddresses(tx, deps.ownAddresses, await addressesInForce(tx, payment.merchant_id, payment.livemode));
  const key = { merchantId: payment.merchant_id, livemode: payment.livemode };
  const balance = payment.livemode ? (await lockBalance(tx, key, BALANCE_TOKEN, now)).available : 0n;
  const [merchant] = payment.livemode ? await tx.select({ status: merchants.status }).from(merchants).where(eq(merchants.id, payment.merchant_id)) : [];
  return {
    data,
    input: {
      payment: planPayment(payment), deposits: deposits.map(planDeposit), addresses, market: marketQuotes(data), now, balance_available: balance,
      ...(merchant && merchant.status !== 'active' ? { payouts_paused: true } : {}),
    },
  };
}
