// A payment paid in parts is settled once per coin: one plan per coin of the deposits settled at
// close. Late deposits are planned on their own by calling planSettlement with just them.
import type { TokenSymbol } from '../tokens/index.ts';
import { planSettlement, type PlanDeposit, type PlanInput, type SettlementPlan } from './plan.ts';

export function planPaymentSettlements(input: Omit<PlanInput, 'deposits'> & { deposits: readonly PlanDeposit[] }): SettlementPlan[] {
  const byCoin = new Map<TokenSymbol, PlanDeposit[]>();
  for (const d of input.deposits) {
    const list = byCoin.get(d.token);
    if (list) list.push(d); else byCoin.set(d.token, [d]);
  }
  // Each plan sees the balance left by the ones before it (rule 6's payout takes the whole balance).
  const plans: SettlementPlan[] = [];
  let balance = input.balance_available ?? 0n;
  for (const deposits of byCoin.values()) {
    const plan = planSettlement({ ...input, deposits, balance_available: balance });
    const credited = plan.balance_credit.find((c) => c.token === 'USDT_TRC20')?.amount ?? 0n;
    balance = plan.payout_request ? 0n : balance + credited;
    plans.push(plan);
  }
  return plans;
}
