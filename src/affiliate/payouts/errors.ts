// The messages of spec 7 "Referral payout request (checked in this order)" and of the other
// referral payout routes, with the merchant payouts' where the spec shares them.
import { AppError } from '../../platform/errors.ts';
import type { Logger } from '../../platform/logger.ts';
import { formatUnits } from '../../money/index.ts';
import { AMOUNT_NOT_POSITIVE, PASSWORD_INCORRECT, PAYOUT_STATE_CONFLICT, amountBelowFee } from '../../settlement/index.ts';
import { REFERRAL_DECIMALS, REFERRAL_TOKEN, minPayoutMessage } from '../terms.ts';

export { AMOUNT_NOT_POSITIVE, PASSWORD_INCORRECT, PAYOUT_STATE_CONFLICT, minPayoutMessage };
export const PAYOUT_OPEN = 'a payout is open already: cancel it, or wait for it to be paid';
export const ADDRESS_OR_ID = 'give address_id or address, not both';
export const INVALID_TRON_ADDRESS = 'address is not a valid Tron address';
export const NOT_USDT_TRON = 'referral payouts are paid in USDT on Tron: choose a USDT (Tron) payout address';
export const UNKNOWN_PAYOUT_ADDRESS = 'unknown payout address';
export const NO_PAYOUT_TARGET = 'add a USDT (Tron) payout address, or give the address to pay';
export const TOO_MANY_DECIMALS = `amount has more than ${REFERRAL_DECIMALS} decimals`;
export const belowNetworkFee = (fee: bigint): string => amountBelowFee(REFERRAL_TOKEN, fee);
export const referralBalanceHolds = (available: bigint): string =>
  `your referral balance holds ${formatUnits(available, REFERRAL_DECIMALS)} ${REFERRAL_TOKEN}`;

export const COULD_NOT_REQUEST = 'could not request the payout';
export const COULD_NOT_LIST = 'could not list the payouts';
export const COULD_NOT_READ = 'could not read the payout';
export const COULD_NOT_CANCEL = 'could not cancel the payout';
export const STATUS_MESSAGE = 'status must be one of requested, processing, paid, rejected, canceled';

/** Runs `fn`; an error that is not one of the spec's answers is logged and becomes 500 `message`. */
export async function failsAs<T>(message: string, log: Logger, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError) throw err;
    log.error({ err }, message);
    throw new AppError(500, message);
  }
}
