export { Decimal, amountText, decimalText, asDec, dec, plain, plainText, ROUND_UP, ROUND_DOWN, ROUND_HALF_UP, type DecimalInput } from './decimal.ts';
export { parseUnits, formatUnits, unitsToDecimal, unitsRoundedUp, quotientUnitsRoundedUp, roundUnitsUp, rescaleUnitsDown, formatDecimal } from './units.ts';
export { usdUp, usdHalfUp, rateHalfUp, formatUsd, formatUsd2, parseAmountUsd, CENT_PLACES, RATE_PLACES } from './dollars.ts';
