// The pure half of the payments room: pricing, listings, the status machine and deposit
// accounting. No I/O behind this door; the lead's payments/index.ts re-exports it.
export {
  CONVERSION_FEE_BPS, amountDuePassedOn, minimumPriceUsd, quotePayment,
  belowMinimumMessage, exchangeMinimumMessage, feesExceedPriceMessage,
  type ConversionRoute, type MerchantPricing, type PriceRequest, type PaymentQuote, type PriceResult, type PriceRefusal, type RefusalReason,
} from './pricing.ts';
export { MIN_SERVICE_FEE_USD, serviceFeeUsd } from './service-fee.ts';
export { EXCHANGE_MARGIN, exchangeFloorUsd, exchangeInputUsd } from './exchange-minimum.ts';
export { feeNote, tokenInfo, tokenOptions, coinRefusal, noOptionRefusal, listTokens, type TokenInfo, type ListingContext } from './token-info.ts';
export {
  PAYMENT_STATUSES, OPEN_STATUSES, PAYMENT_EVENTS, TRANSITIONS, nextStatus,
  isPaymentStatus, isOpen, isClosed, canSimulate, canChooseCoin, countdownRuns, reportsConfirmations,
  type PaymentStatus, type PaymentEventType, type PaymentFacts, type StatusTrigger, type StatusChange, type Coverage, type Transition,
} from './status.ts';
export {
  LATE_WINDOW_MS, applyChange, depositCounts, depositUsdValue, isPaidWithinTolerance, tallyDeposits, withinLateWindow,
  type AccountedPayment, type DepositFacts, type DepositState, type PaymentChange, type AccountingOutcome, type Tally,
} from './deposit-accounting.ts';
