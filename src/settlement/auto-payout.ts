// Rule 6: a USDT balance made by a direct merchant's fallback is paid out automatically, all of
// it, to the merchant's USDT address on BNB Smart Chain in use, else on Ethereum; under $10 it waits.
import { dec, unitsToDecimal, usdHalfUp, type Decimal } from '../money/index.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../tokens/index.ts';
import { BALANCE_TOKEN } from './conversion-paths.ts';
import { addressFor } from './payout-addresses.ts';
import type { PayoutAddressInput } from './types.ts';

export const MIN_PAYOUT_USD = dec(10);
export const AUTO_PAYOUT_TOKENS: readonly TokenSymbol[] = ['USDT_BEP20', 'USDT_ERC20'];
export const REQUESTED_BY_AUTO = 'auto';

export interface AutoPayoutRequest {
  requested_by: typeof REQUESTED_BY_AUTO;
  from_token: TokenSymbol;
  from_chain: string;
  /** Payout coin and address it goes to. */
  token: TokenSymbol;
  address_id: string;
  address: string;
  /** Base units of the balance coin (USDT_TRC20): the whole available balance. */
  amount: bigint;
  amount_usd: Decimal;
}

/** The request for `available` USDT_TRC20, or undefined when it must wait (under $10, no address). */
export function autoPayout(available: bigint, addresses: readonly PayoutAddressInput[], now: Date): AutoPayoutRequest | undefined {
  const amountUsd = unitsToDecimal(available, TOKEN_DEFS[BALANCE_TOKEN].decimals); // a stablecoin: one token is one dollar
  if (amountUsd.lt(MIN_PAYOUT_USD)) return undefined;
  for (const token of AUTO_PAYOUT_TOKENS) {
    const s = addressFor(token, addresses, now, now);
    if (s.state !== 'in_use') continue;
    return {
      requested_by: REQUESTED_BY_AUTO, from_token: BALANCE_TOKEN, from_chain: TOKEN_DEFS[BALANCE_TOKEN].chain,
      token, address_id: s.address.id, address: s.address.address, amount: available, amount_usd: usdHalfUp(amountUsd),
    };
  }
  return undefined;
}
