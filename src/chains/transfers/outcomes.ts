// What a final, failed or canceled transfer means for what it was made for, in the transfer's own
// transaction: a settlement's transfer completes or fails it (spec 3; `settlement.completed` with
// `tx_id`, `settlement.failed`), a payout's transfer marks it sent with its `tx_id` or rejects it
// with the reason. The service's share, sweeps and gas top-ups concern only the service (logged).
// Canceled means its fee would take all it moves (`nothing_left`): only a share paying its own fee
// gets there (the service's dust stays on the deposit address; a treasury sweep's settlement reads
// the sweep's state, conversions.ts); a settlement's or payout's transfer canceled fails it as one
// given up would, never leaving it pending. On Tron, once none of a settlement's transfers is open
// any more (final, given up or canceled: the service's share may end after the merchant's transfer
// completed the settlement), what they burnt becomes its network fee (settlement/burnt-fee.ts). A
// failed settlement records nothing: an operator's retry completes it later, counting what every
// try burnt, or its return makes it custodial. The referral program (`fees`) is told of a settlement's
// service fee once it is final: at its completion (Bitcoin family: with the real network fee) or, on
// Tron, with the burnt fee.
import type { Logger } from '../../platform/logger.ts';
import { AppError } from '../../platform/errors.ts';
import type { Decimal } from '../../money/index.ts';
import type { TokenSymbol } from '../../tokens/index.ts';
import { completeSettlement, failSettlement, lockSettlement, payoutSendFailed, payoutSentOnChain, recordBurntFee, type ServiceFeePort, type SettlementRow } from '../../settlement/index.ts';
import type { Executor } from '../../platform/db/index.ts';
import { referenceBurnt, transferById } from './store.ts';
import type { TransferOutcomes } from './types.ts';
import type { TransferRow } from './schema.ts';
import { isUtxoChain } from '../addresses/index.ts';
import type { Chain } from '../../config.ts';

/** Current market rates of a mode (a token settlement's burnt TRX is priced in its coin with them). */
export type RatesOf = (livemode: boolean) => Partial<Record<TokenSymbol, Decimal>>;

/** Chains whose settlements record the fee burnt rather than the one quoted. */
const BURNT_FEE_CHAINS: ReadonlySet<string> = new Set(['tron']);

/**
 * `settlement`: the row when this transaction has just completed or failed it (locked by that update,
 * no need to read it again). Otherwise the row is locked here before the transfers are read: two of a
 * settlement's transfers ending at once in two transactions would each see the other still open
 * (neither committed), and the burnt fee would never be recorded; locked, the second waits for the
 * first and then reads its transfer closed. The transfer's row is locked before the settlement's, as
 * on every path that ends a transfer.
 */
async function burntFee(tx: Executor, t: TransferRow, settlement: SettlementRow | null, rates: RatesOf | null, fees: ServiceFeePort | null, now: Date): Promise<void> {
  if (!BURNT_FEE_CHAINS.has(t.chain)) return;
  const reference = await settlementOf(tx, t);
  if (reference === null) return;
  const row = settlement ?? await lockSettlement(tx, reference);
  if (!row) return;
  const { burnt, settled } = await referenceBurnt(tx, reference);
  if (!settled) return;
  await recordBurntFee(tx, row, { token: 'TRX', amount: burnt }, rates?.(t.livemode) ?? {}, now, fees);
}

const OF_A_SETTLEMENT: ReadonlySet<string> = new Set(['settlement', 'service_fee']);

/**
 * The settlement a transfer's burn counts toward: its reference for the merchant's and the
 * service's share; for a gas top-up, the settlement of the transfer it funded. A top-up can end
 * after that transfer (a stepper catching up after a pause reads both final at once, the top-up,
 * recorded later, second): its end is then the one that closes the settlement's transfers.
 */
async function settlementOf(tx: Executor, t: TransferRow): Promise<string | null> {
  if (OF_A_SETTLEMENT.has(t.purpose)) return t.reference;
  if (t.purpose !== 'gas_topup') return null;
  const funded = await transferById(tx, t.reference);
  return funded && OF_A_SETTLEMENT.has(funded.purpose) ? funded.reference : null;
}

export function settlementOutcomes(log: Logger, rates: () => RatesOf | null = () => null, fees: () => ServiceFeePort | null = () => null): TransferOutcomes {
  /** The settlement or payout moved on meanwhile (the operator did something): the transfer's state stands. */
  const tolerate = (err: unknown, what: Record<string, unknown>) => {
    if (!(err instanceof AppError)) throw err;
    log.warn({ ...what, err: err.message }, 'a transfer\'s outcome found its settlement or payout moved on');
  };
  const failed: TransferOutcomes['failed'] = async (tx, t, note, now) => {
    let settlement: SettlementRow | null = null;
    try {
      if (t.purpose === 'settlement') settlement = await failSettlement(tx, t.reference, note, now);
      else if (t.purpose === 'payout') await payoutSendFailed(tx, t.reference, note, now);
      else log.error({ transfer: t.id, purpose: t.purpose, chain: t.chain, from: t.fromAddress, why: note }, 'a transfer of the service\'s own money was given up');
    } catch (err) { tolerate(err, { transfer: t.id, reference: t.reference }); }
    await burntFee(tx, t, settlement, rates(), fees(), now);
  };
  return {
    async final(tx, t, now) {
      let settlement: SettlementRow | null = null;
      try {
        // a Bitcoin-family settlement is one transaction: its fee is the settlement's real network fee
        if (t.purpose === 'settlement') settlement = await completeSettlement(tx, t.reference, t.txId!, now, { fees: fees(), ...(isUtxoChain(t.chain as Chain) ? { networkFee: t.minedFee } : {}) });
        else if (t.purpose === 'payout') await payoutSentOnChain(tx, t.reference, t.txId!, now);
      } catch (err) { tolerate(err, { transfer: t.id, reference: t.reference }); }
      await burntFee(tx, t, settlement, rates(), fees(), now);
    },
    failed,
    async canceled(tx, t, note, now) {
      if (t.purpose === 'settlement' || t.purpose === 'payout') return failed(tx, t, note, now);
      log.info({ transfer: t.id, purpose: t.purpose, chain: t.chain, from: t.fromAddress, amount: t.amount.toString(), why: note }, 'a transfer of the service\'s own money was not worth its fee');
      await burntFee(tx, t, null, rates(), fees(), now);
    },
  };
}
