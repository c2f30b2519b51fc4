// Drizzle mirror of migrations/0500_chain_watch.sql, 0510_deposits_awaiting_price.sql and
// 0590_chain_cursor_awaiting_price.sql.
import { bigint, boolean, integer, numeric, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { at, baseUnits } from '../../platform/db/index.ts';

export const chainCursors = pgTable('chain_cursors', {
  chain: text('chain').primaryKey(),
  height: bigint('height', { mode: 'bigint' }).notNull(),
  hash: text('hash').notNull(),
  blockTime: at('block_time').notNull(),
  network: text('network').notNull(),
  status: text('status').notNull(),
  rpcUrlIndex: integer('rpc_url_index').notNull().default(0),
  lastError: text('last_error'),
  updatedAt: at('updated_at').notNull(),
  /** Deposits of this chain may be waiting for a price (awaiting-price.ts): only then does a pass read them. */
  awaitingPrice: boolean('awaiting_price').notNull().default(false),
});

export const chainBlocks = pgTable('chain_blocks', {
  chain: text('chain').notNull(),
  height: bigint('height', { mode: 'bigint' }).notNull(),
  hash: text('hash').notNull(),
  parentHash: text('parent_hash').notNull(),
  blockTime: at('block_time').notNull(),
}, (t) => [primaryKey({ columns: [t.chain, t.height] })]);

export const unmatchedDeposits = pgTable('unmatched_deposits', {
  id: text('id').primaryKey(),
  chain: text('chain').notNull(),
  token: text('token').notNull(),
  address: text('address').notNull(),
  destinationTag: bigint('destination_tag', { mode: 'number' }),
  txId: text('tx_id').notNull(),
  amount: baseUnits('amount').notNull(),
  usdValue: numeric('usd_value'),
  block: bigint('block', { mode: 'number' }),
  merchantId: text('merchant_id'),
  paymentId: text('payment_id'),
  seenAt: at('seen_at').notNull(),
});

export const depositsAwaitingPrice = pgTable('deposits_awaiting_price', {
  id: text('id').primaryKey(),
  chain: text('chain').notNull(),
  paymentId: text('payment_id').notNull(),
  address: text('address').notNull(),
  txId: text('tx_id').notNull(),
  token: text('token').notNull(),
  amount: baseUnits('amount').notNull(),
  sender: text('sender'),
  block: bigint('block', { mode: 'number' }),
  seenAt: at('seen_at').notNull(),
});

export type ChainCursorRow = typeof chainCursors.$inferSelect;
export type UnmatchedDepositRow = typeof unmatchedDeposits.$inferSelect;
