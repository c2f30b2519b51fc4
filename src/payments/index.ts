// Door of the payments room: the pure half, the service, its routes and its workers.
import type { FastifyInstance } from 'fastify';
import type { AccountsService } from '../accounts/index.ts';
import type { Clock } from '../platform/clock.ts';
import type { PaymentsService } from './service.ts';
import { registerV1PaymentRoutes } from './routes/v1-routes.ts';
import { registerCheckoutRoutes } from './routes/checkout-routes.ts';
import { registerMerchantPaymentRoutes } from './routes/merchant-routes.ts';

export * from './pure.ts';
export { PaymentsService, PAYMENT_NOT_FOUND, type KeyCaller, type PaymentsOptions } from './service.ts';
export { DepositIntake, type DepositReport, type PaymentRef, type IntakeResult } from './intake.ts';
export {
  watchedAddressPage, watchedAddressesSince, newestWatchedUpdate, paymentsAtAddress, pendingChainDeposits, chainDepositsAbove, depositAddressGiven,
  type WatchedAddressRow, type AddressOwner, type ChainDeposit,
} from './chain-deposits.ts';
export { payments, deposits, type PaymentRow, type DepositRow } from './schema.ts';
export { findPayment } from './repository.ts';
export { settleInputOf } from './settle-port.ts';
export { paymentJson, publicPaymentJson, paymentEventData, payerView } from './views.ts';
export {
  PaymentGroups, recentGroupPayments, groupedPayments, changesJson, GROUP_CHANGE_COLUMNS,
  type GroupFeed, type GroupChange, type GroupMember, type GroupablePayment,
} from './payment-groups.ts';
export { parseCreateInput, type CreateInput } from './create-input.ts';
export type { CreateGuard } from './create.ts';
export { notEnabled } from './coin.ts';
export { SOCKET_EVENTS, WEBHOOK_PAYMENT_EVENTS } from './payment-events.ts';
export { SIMULATION_OUTCOMES } from './create-input.ts';
export { EMPTY_TRAIL_SECTIONS, type TrailSections } from './timeline.ts';
export type { FailedWebhooksCounter } from './dashboard.ts';
export type { PayoutAddressSource } from './catalog.ts';

export async function registerPaymentRoutes(app: FastifyInstance, accounts: AccountsService, payments: PaymentsService, clock: Clock): Promise<void> {
  registerV1PaymentRoutes(app, accounts, payments);
  registerMerchantPaymentRoutes(app, accounts, payments);
  await registerCheckoutRoutes(app, accounts, payments, clock);
}

// Messages the OpenAPI document (src/openapi/routes) lists, imported there rather than typed again.
export { COIN_ALREADY_CHOSEN, NOT_AN_OPTION, NO_LONGER_PAYABLE, TOKEN_REQUIRED } from './coin.ts';
export { AMOUNT_REQUIRED, CUSTOMER_EMAIL_INVALID, ORDER_ID_LENGTH, ORDER_ID_REQUIRED, TOKENS_NOT_ARRAY, TOKEN_NOT_IN_TOKENS, TOKEN_NOT_STRING } from './create-input.ts';
export { FROM_AFTER_TO, FROM_NOT_A_DAY, GIVEN_ONCE_ERRORS, ORDER_ID_TOO_LONG, Q_TOO_LONG, TO_NOT_A_DAY } from './list-filters.ts';
export { TEST_PAYMENTS_ONLY } from './routes/merchant-routes.ts';
export { DAYS_MESSAGE } from './series.ts';
export { CHOOSE_COIN_FIRST, ONLY_TEST, OUTCOME_REQUIRED, SIMULATION_RUNNING } from './simulation.ts';
