-- Watching the chains (CONTRACT.md "Live chains"): one cursor per chain (the last block the watcher
-- finished, with the node's network and the chain's state for /admin/chains, written by whichever
-- process holds the chain's lock), the recent blocks it finished (their hashes find the common
-- ancestor after a reorganisation), and the transfers to our addresses no payment took.
create table chain_cursors (
  chain text primary key,
  height bigint not null,
  hash text not null,
  block_time timestamptz not null,
  -- what the node first said it serves (EVM chain id, …): another answer later marks the chain down
  network text not null,
  status text not null,
  rpc_url_index integer not null default 0,
  last_error text,
  updated_at timestamptz not null
);

create table chain_blocks (
  chain text not null,
  height bigint not null,
  hash text not null,
  parent_hash text not null,
  block_time timestamptz not null,
  primary key (chain, height)
);

create table unmatched_deposits (
  id text primary key,
  chain text not null,
  token text not null,
  address text not null,
  destination_tag bigint,
  tx_id text not null,
  amount numeric(78, 0) not null,
  usd_value numeric,
  block bigint,
  -- the payment whose address it was, when one was (closed past its late window)
  merchant_id text,
  payment_id text,
  seen_at timestamptz not null
);
-- Reprocessing a block (after a crash or a reorganisation) records a transfer once.
create unique index unmatched_deposits_once on unmatched_deposits (chain, tx_id, address, (coalesce(destination_tag, -1)), token);
create index unmatched_deposits_newest on unmatched_deposits (seen_at desc);
create index unmatched_deposits_by_payment on unmatched_deposits (payment_id) where payment_id is not null;

-- A deposit whose block left the best chain: it waits (0 confirmations) for its transaction to be
-- mined again, and fails when it is not within the hour.
alter table deposits add column orphaned_at timestamptz;
-- The watcher's look-ups: the deposits still counting confirmations, and the live payments of a
-- chain by address (any letter case: the index of an EVM chain keys lower-case addresses) or by
-- the time their address was given (the index follows new payments of every process).
create index deposits_pending on deposits (payment_id) where status = 'pending' and not simulated;
create index payments_live_by_address on payments (chain, lower(deposit_address)) where livemode and deposit_address <> '';
create index payments_live_by_update on payments (chain, updated_at) where livemode and deposit_address <> '';
