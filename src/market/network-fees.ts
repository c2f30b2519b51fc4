// A live token's network fee and minimum from the chain's quote (spec part 1 "Fees"). Pure.
//  - network_fee_usd = the sweep's cost in base units of the chain's own coin × that coin's
//    current rate, rounded UP to the cent (the service never prices a transfer below its cost);
//  - min_usd = the larger of the built-in minimum and twice network_fee_usd: when the merchant
//    pays the fees a payment must be worth at least twice its network fee, and the built-in
//    figures already keep that relation, so a fee that rises lifts the minimum with it.
import { unitsToDecimal, usdUp, type Decimal } from '../money/index.ts';
import { tokenDef, type TokenSymbol } from '../tokens/index.ts';
import { nativeTokenOf } from './assets.ts';

/** The dollar cost of `units` of the native coin of `token`'s chain at `nativeRate`, up to the cent. */
export function networkFeeUsd(token: TokenSymbol, units: bigint, nativeRate: Decimal): Decimal {
  const native = tokenDef(nativeTokenOf(tokenDef(token).chain));
  return usdUp(unitsToDecimal(units, native.decimals).mul(nativeRate));
}

/** min_usd of a token whose network fee is `feeUsd`: at least twice the fee, never below `floor`. */
export function minimumUsd(floor: Decimal, feeUsd: Decimal): Decimal {
  const twice = feeUsd.mul(2);
  return twice.gt(floor) ? twice : floor;
}
