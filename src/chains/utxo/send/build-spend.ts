// One Bitcoin-family transaction for the transfers it carries (a settlement's share of a deposit
// address, a hot-wallet payout and its change), seen from each of them. Signed once: the fee is
// set from the size the spend has at most once signed (spend-size.ts), worked out from the
// outputs it would have with no fee (a fee only ever takes an output away, below dust), so the fee
// is never below the rate times the signed size.
import type { UtxoNetwork } from '../../addresses/index.ts';
import type { Preparation, SignedTx } from '../../transfers/types.ts';
import type { UtxoCoin } from '../coins.ts';
import { scriptOfAddress } from '../scripts.ts';
import type { UnspentInput } from './deposit-outputs.ts';
import { planOutputs, type PlannedTransfer } from './outputs.ts';
import { signSpend, type SpendOutput } from './sign.ts';
import { spendVbytes } from './spend-size.ts';

/** What an attempt's `fee` record keeps: enough to rebuild the transaction with a higher fee. */
export interface SpendRecord {
  fee: string;
  fee_rate_per_kvb: string;
  vsize: string;
  /** JSON: the outpoints spent. */
  inputs: string;
  /** JSON: the transfers it carries, each with its output. */
  carries: string;
}

export interface Carried extends PlannedTransfer { paid: string }

export interface BuiltSpend { of: (id: string) => SignedTx }

/** Why there is no spend, and whether a later try could make one (a preparation's refusal). */
export type Refused = Extract<Preparation, { kind: 'refused' }>;

export const notOnNetwork = (address: string, chain: string) => `${address} is not an address of this ${chain} network`;

/**
 * The transaction spending `inputs` (all of them, signed with `key`) for `transfers`, with the fee
 * `feeOf` the spend's size; the refusal saying why there is none.
 */
export async function buildSpend(coin: UtxoCoin, network: UtxoNetwork, inputs: readonly UnspentInput[], transfers: readonly PlannedTransfer[], key: Uint8Array,
  feeOf: (vsize: number) => bigint, rate: bigint): Promise<BuiltSpend | Refused> {
  const total = inputs.reduce((s, i) => s + i.amount, 0n);
  const outputsFor = (fee: bigint) => {
    const plan = planOutputs(total, transfers, fee, coin.dustLimit);
    if (!plan.ok) return { kind: 'refused' as const, why: plan.why, permanent: plan.permanent };
    const outs: SpendOutput[] = [];
    for (const o of plan.outputs) {
      const script = scriptOfAddress(network, o.to);
      if (!script) return { kind: 'refused' as const, why: notOnNetwork(o.to, coin.chain), permanent: true };
      outs.push({ script, amount: o.amount });
    }
    return { plan, outs };
  };
  const unpaid = outputsFor(0n);
  if (unpaid.kind === 'refused') return unpaid;
  const done = outputsFor(feeOf(spendVbytes(coin, inputs.length, unpaid.outs.map((o) => o.script))));
  if (done.kind === 'refused') return done;
  const { plan, outs } = done;
  const signed = await signSpend(coin, inputs, outs, key);
  const carries: Carried[] = transfers.map((x) => ({ ...x, amount: x.amount, paid: String(plan.outputs.find((o) => o.transferId === x.id)?.amount ?? 0n) }));
  const record: SpendRecord = {
    fee: String(plan.fee), fee_rate_per_kvb: String(rate), vsize: String(signed.vsize),
    inputs: JSON.stringify(inputs.map((i) => ({ txid: i.txid, vout: i.vout }))),
    carries: JSON.stringify(carries, (_k, v) => (typeof v === 'bigint' ? String(v) : v)),
  };
  return {
    of: (id) => ({
      txId: signed.txId, raw: signed.raw, nonce: null, value: BigInt(carries.find((c) => c.id === id)!.paid),
      fee: record as unknown as Record<string, string>, feeReserve: plan.fee,
    }),
  };
}
