// Door of the pure settlement planner: routing of a coin, fees, the plan of one settlement and
// its ledger entries. Nothing here does I/O.
export type { SettlementSetting, ConvertInto, PayoutAddressInput, SwapQuote, MarketQuotes } from './types.ts';
export { routeCoin, conversionFeeBps, NOTE_NO_PAYOUT_COIN, NOTE_BELOW_EXCHANGE_MINIMUM, NOTE_EXCHANGE_REFUSED, NOTE_CANNOT_PAY_OUT, refusedAddressNote, type Route, type RouteInput } from './routing.ts';
export { conversionVia, canSwap, BALANCE_TOKEN, CONVERT_FEE_BPS, PLATFORM_FEE_BPS, type ConversionVia } from './conversion-paths.ts';
export { addressFor, AWAIT_ADDRESS_CAP_MS, type AddressState } from './payout-addresses.ts';
export { serviceFeeUnits, networkFeeUnits, conversionFeeUnits, usdRate, splitUsd, MIN_SERVICE_FEE_USD, type CoinSplit, type UsdSplit } from './fees.ts';
export { checkSwap, NOTE_SWAP_PRICE_OFF_MARKET, NOTE_SWAP_BELOW_QUOTE, NOTE_SWAP_NOT_WORTH_IT, type SwapCheck } from './swap-guard.ts';
export { ledgerEntries, sumByToken, LEDGER_TYPES, type LedgerEntryPlan, type LedgerType } from './ledger.ts';
export { autoPayout, MIN_PAYOUT_USD, REQUESTED_BY_AUTO, type AutoPayoutRequest } from './auto-payout.ts';
export {
  planSettlement, NOTE_SMALLER_THAN_FEES, NOTE_WAITING_PRICE,
  type PlanInput, type PlanPayment, type PlanDeposit, type SettlementPlan, type SettlementStatus, type ConversionPlan, type TransferPlan,
} from './plan.ts';
export { planPaymentSettlements } from './group.ts';
export { marketQuotes } from './market-quotes.ts';
