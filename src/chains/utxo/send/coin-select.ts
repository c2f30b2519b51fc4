// Which of a deposit address's unspent outputs a settlement spends: a set worth exactly what its
// transfers move, so a later deposit to the same address (an overpayment, a second part not yet
// settled) stays where it is for its own settlement. Outputs are taken by transaction (a deposit is
// everything one transaction paid to the address): all of them, the oldest ones first, then any
// combination of at most 12 transactions.
export interface Unspent {
  txid: string;
  vout: number;
  amount: bigint;
  /** Block height of the transaction (older first). */
  height: number;
}

const MAX_GROUPS_SEARCHED = 12;

export function selectExact<T extends Unspent>(unspent: readonly T[], total: bigint): T[] | null {
  const groups = new Map<string, T[]>();
  for (const u of [...unspent].sort((a, b) => a.height - b.height || a.txid.localeCompare(b.txid) || a.vout - b.vout)) {
    const g = groups.get(u.txid);
    if (g) g.push(u); else groups.set(u.txid, [u]);
  }
  const list = [...groups.values()].map((outs) => ({ outs, sum: outs.reduce((s, o) => s + o.amount, 0n) }));
  let running = 0n;
  for (let i = 0; i < list.length; i++) {
    running += list[i].sum;
    if (running === total) return list.slice(0, i + 1).flatMap((g) => g.outs);
    if (running > total) break;
  }
  if (list.length > MAX_GROUPS_SEARCHED) return null;
  for (let mask = 1; mask < 1 << list.length; mask++) {
    let sum = 0n;
    for (let i = 0; i < list.length; i++) if (mask & (1 << i)) sum += list[i].sum;
    if (sum === total) return list.filter((_, i) => mask & (1 << i)).flatMap((g) => g.outs);
  }
  return null;
}

