// A settlement keeps what it was planned from (JSON, amounts as strings) so a settlement waiting
// for an address can be planned again later.
import { dec } from '../money/index.ts';
import type { PlanDeposit, PlanPayment } from './planner.ts';
import type { SettleDeposit, SettlePayment } from './ports.ts';

export interface StoredInput {
  payment: SettlePayment;
  deposits: { tx_id: string; token: string; amount: string; usd_value: string; final_at: string }[];
}

export function storeInput(payment: SettlePayment, deposits: readonly SettleDeposit[]): StoredInput {
  return {
    payment,
    deposits: deposits.map((d) => ({ tx_id: d.tx_id, token: d.token, amount: d.amount.toString(), usd_value: d.usd_value, final_at: d.final_at.toISOString() })),
  };
}

export function loadInput(s: StoredInput): { payment: SettlePayment; deposits: SettleDeposit[] } {
  return {
    payment: s.payment,
    deposits: s.deposits.map((d) => ({ tx_id: d.tx_id, token: d.token as SettleDeposit['token'], amount: BigInt(d.amount), usd_value: d.usd_value, final_at: new Date(d.final_at) })),
  };
}

export function planPayment(p: SettlePayment): PlanPayment {
  return {
    id: p.id, ...(p.store_id ? { store_id: p.store_id } : {}), livemode: p.livemode, token: p.token,
    ...(p.rate_locked ? { rate_locked: dec(p.rate_locked) } : {}), ...(p.network_fee !== undefined ? { network_fee: BigInt(p.network_fee) } : {}), fee_bps: p.fee_bps, settlement: p.settlement, convert_into: p.convert_into,
  };
}

export const planDeposit = (d: SettleDeposit): PlanDeposit =>
  ({ tx_id: d.tx_id, token: d.token, amount: d.amount, usd_value: dec(d.usd_value), final_at: d.final_at });
