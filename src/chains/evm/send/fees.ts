// EVM fee fields (pure): EIP-1559 where the node's blocks carry a base fee, a legacy gas price
// otherwise; the most a transaction may cost (what a deposit address must hold), what it costs at
// today's prices (the network fee quote), and a replacement's bump.

export type EvmFee =
  | { type: 'eip1559'; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }
  | { type: 'legacy'; gasPrice: bigint };

/** What the network asks now: the latest block's base fee (null: no EIP-1559), the priority fee, the gas price. */
export interface NetworkPrices { baseFee: bigint | null; priorityFee: bigint; gasPrice: bigint }

/** A replacement pays at least this much more (nodes ask 10% on both fee fields; 25% leaves room). */
export const BUMP_PERCENT = 125n;

/**
 * The fee a transaction is signed with: max fee twice the base fee plus the tip, so it stays
 * includable while the base fee rises for several full blocks.
 */
export function feeFor(p: NetworkPrices): EvmFee {
  if (p.baseFee === null) return { type: 'legacy', gasPrice: p.gasPrice };
  return { type: 'eip1559', maxFeePerGas: 2n * p.baseFee + p.priorityFee, maxPriorityFeePerGas: p.priorityFee };
}

/** The most one unit of gas may cost under this fee. */
export const maxPrice = (f: EvmFee): bigint => (f.type === 'eip1559' ? f.maxFeePerGas : f.gasPrice);

/** What one unit of gas costs at today's prices (base fee plus tip, or the gas price). */
export const currentPrice = (p: NetworkPrices): bigint => (p.baseFee === null ? p.gasPrice : p.baseFee + p.priorityFee);

const up = (v: bigint): bigint => (v * BUMP_PERCENT + 99n) / 100n;
const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);

/** A replacement's fee: each field at least BUMP_PERCENT of the last (rounded up), and at least today's. */
export function bumpFee(last: EvmFee, today: EvmFee): EvmFee {
  if (last.type === 'legacy') return { type: 'legacy', gasPrice: max(up(last.gasPrice), maxPrice(today)) };
  const tip = max(up(last.maxPriorityFeePerGas), today.type === 'eip1559' ? today.maxPriorityFeePerGas : 0n);
  return { type: 'eip1559', maxPriorityFeePerGas: tip, maxFeePerGas: max(max(up(last.maxFeePerGas), maxPrice(today)), tip) };
}

/** The fee and gas limit as an attempt stores them (decimal strings). */
export function feeFields(f: EvmFee, gas: bigint): Record<string, string> {
  return f.type === 'eip1559'
    ? { type: f.type, gas: gas.toString(), maxFeePerGas: f.maxFeePerGas.toString(), maxPriorityFeePerGas: f.maxPriorityFeePerGas.toString() }
    : { type: f.type, gas: gas.toString(), gasPrice: f.gasPrice.toString() };
}

export function parseFeeFields(fields: Record<string, string>): { fee: EvmFee; gas: bigint } {
  const gas = BigInt(fields.gas);
  if (fields.type === 'eip1559') {
    return { gas, fee: { type: 'eip1559', maxFeePerGas: BigInt(fields.maxFeePerGas), maxPriorityFeePerGas: BigInt(fields.maxPriorityFeePerGas) } };
  }
  return { gas, fee: { type: 'legacy', gasPrice: BigInt(fields.gasPrice) } };
}
