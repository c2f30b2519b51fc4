// The outputs of one settlement transaction: each transfer it carries gets one output. A transfer
// that arrives exactly (the merchant's `net`) gets its amount; those that pay the network fee out of
// themselves (the service's share, a sweep) share what is left after the fee, in order, and one
// left below the dust limit is not made (its value goes to the fee: an output worth less than
// spending it is refused by nodes and would be lost anyway).
export interface PlannedTransfer {
  id: string;
  to: string;
  amount: bigint;
  paysOwnFee: boolean;
}

export interface PlannedOutput {
  transferId: string;
  to: string;
  amount: bigint;
}

export type OutputPlan =
  | { ok: true; outputs: PlannedOutput[]; fee: bigint }
  /** `permanent`: no later try can pass (a payee's output below dust); a fee may fall, outputs may change. */
  | { ok: false; why: string; permanent: boolean };

/** Why an output of `amount` to `to` is not made (nodes refuse it as dust). */
export const belowDust = (amount: bigint, to: string, dust: bigint): string => `${amount} base units to ${to} is below the dust limit of ${dust}`;

/**
 * Outputs spending `inputs` (their total) with at least `fee` to the network. Everything not paid
 * out is the fee, so inputs = outputs + fee always holds.
 */
export function planOutputs(inputs: bigint, transfers: readonly PlannedTransfer[], fee: bigint, dust: bigint): OutputPlan {
  const exact = transfers.filter((t) => !t.paysOwnFee);
  const payers = transfers.filter((t) => t.paysOwnFee);
  const wanted = transfers.reduce((s, t) => s + t.amount, 0n);
  if (wanted !== inputs) return { ok: false, why: `the transfers total ${wanted} base units but the deposit outputs spent hold ${inputs}`, permanent: false };
  // before the fee: an exact output below dust is refused whatever the fee, so it is said first
  const dusty = exact.find((t) => t.amount < dust);
  if (dusty) return { ok: false, why: belowDust(dusty.amount, dusty.to, dust), permanent: true };
  const payersTotal = payers.reduce((s, t) => s + t.amount, 0n);
  if (payersTotal < fee) {
    return { ok: false, why: `the network fee of ${fee} base units exceeds the ${payersTotal} that pay it`, permanent: false };
  }
  const outputs: PlannedOutput[] = exact.map((t) => ({ transferId: t.id, to: t.to, amount: t.amount }));
  let owed = fee;
  for (const t of payers) {
    const share = t.amount >= owed ? t.amount - owed : 0n;
    owed = owed > t.amount ? owed - t.amount : 0n;
    if (share >= dust) outputs.push({ transferId: t.id, to: t.to, amount: share });
  }
  const paid = outputs.reduce((s, o) => s + o.amount, 0n);
  return { ok: true, outputs, fee: inputs - paid };
}
