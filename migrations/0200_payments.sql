-- Payments and their deposits (spec part 2 Payment, Deposit; part 3 Payment status).
create table payments (
  id text primary key,
  merchant_id text not null references merchants(id),
  store_id text,
  livemode boolean not null,
  order_id text not null,
  status text not null,
  -- '' until a coin is chosen
  token text not null default '',
  chain text not null default '',
  deposit_address text not null default '',
  address_index integer,
  destination_tag bigint,
  usd_amount numeric not null,
  amount_due_usd numeric not null,
  extra_usd numeric,
  crypto_amount numeric(78, 0),
  rate_locked numeric,
  network_fee numeric(78, 0),
  network_fee_usd numeric,
  network_fee_bps integer,
  received_amount numeric(78, 0) not null default 0,
  received_usd numeric not null default 0,
  confirmations integer,
  confirmations_required integer,
  -- merchant settings in force at creation (spec 1 Payment behaviour 7)
  settings jsonb not null,
  -- the `tokens` subset asked at creation; null: every enabled coin
  allowed_tokens text[],
  description text,
  metadata jsonb,
  customer_email text,
  success_url text,
  cancel_url text,
  webhook_url text,
  checkout_token text not null unique,
  price_amount text,
  price_currency text,
  price_rate text,
  simulation jsonb,
  expires_at timestamptz not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  confirmed_at timestamptz,
  closed_at timestamptz
);
-- One open payment per order_id in a scope (merchant, mode, store or none): the safe retry.
create unique index payments_open_order on payments (merchant_id, livemode, (coalesce(store_id, '')), order_id)
  where status in ('pending', 'partially_paid', 'detecting');
create index payments_by_merchant on payments (merchant_id, livemode, created_at desc);
create index payments_by_address on payments (deposit_address) where deposit_address <> '';

create table deposits (
  id text primary key,
  payment_id text not null references payments(id),
  tx_id text not null,
  token text not null,
  amount numeric(78, 0) not null,
  usd_value numeric not null,
  counted boolean not null default false,
  confirmations integer not null default 0,
  confirmations_required integer not null,
  status text not null,
  simulated boolean not null default false,
  late boolean not null default false,
  sender text,
  block bigint,
  seen_at timestamptz not null,
  final_at timestamptz,
  unique (payment_id, tx_id)
);

-- Deposit address indexes and XRP destination tags: sequences are never rolled back, so an
-- index is never handed out twice, and taking one blocks no other payment.
create sequence deposit_index_bitcoin_test;
create sequence deposit_index_bitcoin_live;
create sequence deposit_index_litecoin_test;
create sequence deposit_index_litecoin_live;
create sequence deposit_index_dogecoin_test;
create sequence deposit_index_dogecoin_live;
create sequence deposit_index_ethereum_test;
create sequence deposit_index_ethereum_live;
create sequence deposit_index_bsc_test;
create sequence deposit_index_bsc_live;
create sequence deposit_index_tron_test;
create sequence deposit_index_tron_live;
create sequence xrp_destination_tag_test start with 100000;
create sequence xrp_destination_tag_live start with 100000;
