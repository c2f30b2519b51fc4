// Drizzle mirrors of migrations/0400_settlement.sql.
import { bigint, bigserial, boolean, customType, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { at, baseUnits } from '../platform/db/index.ts';
import { dec, type Decimal } from '../money/index.ts';

/** A dollar figure or rate: NUMERIC in the database, Decimal in code. */
export const decimalColumn = customType<{ data: Decimal; driverData: string }>({
  dataType: () => 'numeric',
  toDriver: (value) => value.toFixed(),
  fromDriver: (value) => dec(String(value)),
});

export const payoutAddresses = pgTable('payout_addresses', {
  id: text('id').primaryKey(),
  merchantId: text('merchant_id').notNull(),
  livemode: boolean('livemode').notNull(),
  token: text('token').notNull(),
  chain: text('chain').notNull(),
  address: text('address').notNull(),
  tag: bigint('tag', { mode: 'number' }),
  label: text('label').notNull(),
  isDefault: boolean('is_default').notNull(),
  activeAt: at('active_at').notNull(),
  createdBy: text('created_by').notNull(),
  createdAt: at('created_at').notNull(),
  updatedAt: at('updated_at').notNull(),
  deletedAt: at('deleted_at'),
});

export const settlements = pgTable('settlements', {
  id: text('id').primaryKey(),
  merchantId: text('merchant_id').notNull(),
  paymentId: text('payment_id').notNull(),
  storeId: text('store_id'),
  livemode: boolean('livemode').notNull(),
  mode: text('mode').notNull(),
  token: text('token').notNull(),
  chain: text('chain').notNull(),
  depositTx: text('deposit_tx').notNull(),
  depositTxs: text('deposit_txs').array(),
  amount: baseUnits('amount').notNull(),
  serviceFee: baseUnits('service_fee').notNull(),
  networkFee: baseUnits('network_fee').notNull(),
  conversionFee: baseUnits('conversion_fee').notNull(),
  net: baseUnits('net').notNull(),
  usdValue: decimalColumn('usd_value').notNull(),
  usdRate: decimalColumn('usd_rate').notNull(),
  serviceFeeUsd: decimalColumn('service_fee_usd').notNull(),
  networkFeeUsd: decimalColumn('network_fee_usd').notNull(),
  conversionFeeUsd: decimalColumn('conversion_fee_usd').notNull(),
  netUsd: decimalColumn('net_usd').notNull(),
  destination: text('destination'),
  destinationTag: bigint('destination_tag', { mode: 'number' }),
  txId: text('tx_id'),
  status: text('status').notNull(),
  note: text('note'),
  awaitsUntil: at('awaits_until'),
  replanAt: at('replan_at'),
  conversion: jsonb('conversion'),
  input: jsonb('input').notNull(),
  webhookUrl: text('webhook_url'),
  transferIntents: text('transfer_intents').array(),
  createdAt: at('created_at').notNull(),
  updatedAt: at('updated_at').notNull(),
  completedAt: at('completed_at'),
});

export const settlementDeposits = pgTable('settlement_deposits', {
  paymentId: text('payment_id').notNull(),
  txId: text('tx_id').notNull(),
  settlementId: text('settlement_id').notNull(),
}, (t) => [primaryKey({ columns: [t.paymentId, t.txId] })]);

export const ledgerEntries = pgTable('ledger_entries', {
  seq: bigserial('seq', { mode: 'number' }).primaryKey(),
  id: text('id').notNull().unique(),
  merchantId: text('merchant_id').notNull(),
  livemode: boolean('livemode').notNull(),
  type: text('type').notNull(),
  token: text('token').notNull(),
  chain: text('chain').notNull(),
  amount: baseUnits('amount').notNull(),
  usdAmount: decimalColumn('usd_amount').notNull(),
  reference: text('reference').notNull(),
  note: text('note'),
  paymentId: text('payment_id'),
  createdAt: at('created_at').notNull(),
});

export const balances = pgTable('balances', {
  merchantId: text('merchant_id').notNull(),
  livemode: boolean('livemode').notNull(),
  token: text('token').notNull(),
  chain: text('chain').notNull(),
  available: baseUnits('available').notNull(),
  pendingPayout: baseUnits('pending_payout').notNull(),
  updatedAt: at('updated_at').notNull(),
}, (t) => [primaryKey({ columns: [t.merchantId, t.livemode, t.token] })]);

export const payouts = pgTable('payouts', {
  id: text('id').primaryKey(),
  merchantId: text('merchant_id').notNull(),
  livemode: boolean('livemode').notNull(),
  token: text('token').notNull(),
  chain: text('chain').notNull(),
  fromToken: text('from_token').notNull(),
  fromChain: text('from_chain').notNull(),
  amount: baseUnits('amount').notNull(),
  networkFee: baseUnits('network_fee').notNull(),
  sendAmount: baseUnits('send_amount').notNull(),
  amountUsd: decimalColumn('amount_usd').notNull(),
  networkFeeUsd: decimalColumn('network_fee_usd').notNull(),
  sendAmountUsd: decimalColumn('send_amount_usd').notNull(),
  usdRate: decimalColumn('usd_rate').notNull(),
  addressId: text('address_id').notNull(),
  address: text('address').notNull(),
  tag: bigint('tag', { mode: 'number' }),
  status: text('status').notNull(),
  requestedBy: text('requested_by').notNull(),
  txId: text('tx_id'),
  reviewNote: text('review_note'),
  createdAt: at('created_at').notNull(),
  updatedAt: at('updated_at').notNull(),
  approvedAt: at('approved_at'),
  rejectedAt: at('rejected_at'),
  sentAt: at('sent_at'),
  canceledAt: at('canceled_at'),
});

export type PayoutAddressRow = typeof payoutAddresses.$inferSelect;
export type SettlementRow = typeof settlements.$inferSelect;
export type LedgerRow = typeof ledgerEntries.$inferSelect;
export type BalanceRow = typeof balances.$inferSelect;
export type PayoutRow = typeof payouts.$inferSelect;
