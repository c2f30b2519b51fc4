// Door of the settlement room: money after payment. The pure planner (planner.ts), the executor,
// the ledger and balances, payout addresses, merchant payouts, their routes and workers.
export * from './planner.ts';
export { SettlementService } from './service.ts';
export type { TransferPort, TransferRequest, TransferState, TransferKind, DepositsPort, SettleInput, SettlePayment, SettleDeposit, ServiceFeePort, FinalServiceFee, OwnAddressCheck, AddressRetiredPort, AddressRetirement } from './ports.ts';
export { settlePayment, replanDue, completeSettlement, failSettlement, type ExecutorDeps } from './executor.ts';
export { recordBurntFee, burntInToken, lockSettlement } from './burnt-fee.ts';
export { NOTE_WAITING_TRANSFER, NOTE_WAITING_CONVERSION } from './settlement-writer.ts';
export { SERVICE_SENT_PAYOUT_TOKENS, PAYOUT_BEING_SENT, payoutSentOnChain, payoutSendFailed, payoutSendFailedNote } from './payouts/service-sent.ts';
export { SETTLEMENT_NOT_FAILED, returnedNote } from './failed-settlements.ts';
export { settlementSubscriber, SETTLING_EVENTS, type Settler } from './subscriber.ts';
export { checkLedger, type LedgerMismatch } from './check-ledger.ts';
export { runScheduledPayouts, payoutDue, REQUESTED_BY_SCHEDULER } from './payouts/scheduled.ts';
export { registerSettlementRoutes } from './routes/index.ts';
export { scheduleSettlementWork } from './workers.ts';
export { settlementJson, payoutJson, payoutAddressJson, ledgerEntryJson, balanceJson } from './json.ts';
export { payoutAddresses, settlements, ledgerEntries, balances, payouts, decimalColumn, type PayoutAddressRow, type SettlementRow } from './schema.ts';
export { PAYOUT_STATE_CONFLICT, amountBelowFee } from './payouts/payout-store.ts';
export { AMOUNT_NOT_POSITIVE } from './payouts/payout-math.ts';
export { PASSWORD_INCORRECT } from './address-rules.ts';
export { TX_ID_REQUIRED, NOTE_REQUIRED, addressNotActive, refuseInactive } from './payouts/payout-service.ts';
export { UNKNOWN_MERCHANT } from './adjustments.ts';

// Messages the OpenAPI document (src/openapi/routes) lists, imported there rather than typed again.
export { ONLY_XRP_TAGS } from './address-rules.ts';
export { SETTLEMENT_NOT_FOUND } from './statement.ts';
