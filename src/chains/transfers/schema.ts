// Drizzle mirrors of migrations/0540_outgoing_transfers.sql.
import { bigint, bigserial, boolean, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { at, baseUnits } from '../../platform/db/index.ts';

export const outgoingTransfers = pgTable('outgoing_transfers', {
  id: text('id').primaryKey(),
  seq: bigserial('seq', { mode: 'number' }).notNull().unique(),
  chain: text('chain').notNull(),
  livemode: boolean('livemode').notNull(),
  purpose: text('purpose').notNull(),
  token: text('token').notNull(),
  fromAddress: text('from_address').notNull(),
  fromRole: text('from_role').notNull(),
  fromIndex: integer('from_index'),
  toAddress: text('to_address').notNull(),
  toTag: bigint('to_tag', { mode: 'number' }),
  amount: baseUnits('amount').notNull(),
  paysOwnFee: boolean('pays_own_fee').notNull(),
  reference: text('reference').notNull(),
  dependsOn: text('depends_on'),
  status: text('status').notNull(),
  waiting: text('waiting'),
  nonce: bigint('nonce', { mode: 'bigint' }),
  uncertain: boolean('uncertain').notNull(),
  txId: text('tx_id'),
  block: bigint('block', { mode: 'bigint' }),
  sentAmount: baseUnits('sent_amount'),
  feesPaid: baseUnits('fees_paid').notNull(),
  minedFee: baseUnits('mined_fee'),
  failures: integer('failures').notNull(),
  replacements: integer('replacements').notNull(),
  nextAt: at('next_at').notNull(),
  lastError: text('last_error'),
  createdAt: at('created_at').notNull(),
  updatedAt: at('updated_at').notNull(),
  finalAt: at('final_at'),
});

export const outgoingAttempts = pgTable('outgoing_transfer_attempts', {
  transferId: text('transfer_id').notNull(),
  n: integer('n').notNull(),
  txId: text('tx_id').notNull(),
  raw: text('raw').notNull(),
  nonce: bigint('nonce', { mode: 'bigint' }),
  value: baseUnits('value').notNull(),
  fee: jsonb('fee').$type<Record<string, string>>().notNull(),
  feeReserve: baseUnits('fee_reserve').notNull(),
  createdAt: at('created_at').notNull(),
  broadcastAt: at('broadcast_at'),
}, (t) => [primaryKey({ columns: [t.transferId, t.n] })]);

export const senderNonces = pgTable('sender_nonces', {
  chain: text('chain').notNull(),
  livemode: boolean('livemode').notNull(),
  address: text('address').notNull(),
  nextNonce: bigint('next_nonce', { mode: 'bigint' }).notNull(),
  updatedAt: at('updated_at').notNull(),
}, (t) => [primaryKey({ columns: [t.chain, t.livemode, t.address] })]);

export type TransferRow = typeof outgoingTransfers.$inferSelect;
export type AttemptRow = typeof outgoingAttempts.$inferSelect;
