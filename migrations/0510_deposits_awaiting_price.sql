-- A deposit in another coin than its payment's, seen while that coin has no current market price:
-- it cannot be valued, so it waits here (never lost) while the chain's cursor moves on, and is
-- recorded as the payment's deposit, valued at a current price, on the first watcher pass after
-- that coin is priced again.
create table deposits_awaiting_price (
  id text primary key,
  chain text not null,
  payment_id text not null,
  address text not null,
  tx_id text not null,
  token text not null,
  amount numeric(78, 0) not null,
  sender text,
  block bigint,
  seen_at timestamptz not null
);
-- Reprocessing a block records a transfer once.
create unique index deposits_awaiting_price_once on deposits_awaiting_price (chain, tx_id, address, token);
create index deposits_awaiting_price_by_chain on deposits_awaiting_price (chain, seen_at);
