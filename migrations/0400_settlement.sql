-- Money after payment: payout addresses, settlements, the ledger and balances, merchant payouts.

-- Deleted addresses are kept (deleted_at) so rule 2 can tell "added after the coin's last address
-- was deleted" from "the first address of the coin".
create table payout_addresses (
  id text primary key,
  merchant_id text not null references merchants(id),
  livemode boolean not null,
  token text not null,
  chain text not null,
  address text not null,
  tag bigint,
  label text not null default '',
  is_default boolean not null default false,
  active_at timestamptz not null,
  created_by text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  deleted_at timestamptz
);
create index payout_addresses_in_force on payout_addresses (merchant_id, livemode, token, created_at) where deleted_at is null;

create table settlements (
  id text primary key,
  merchant_id text not null references merchants(id),
  payment_id text not null,
  store_id text,
  livemode boolean not null,
  mode text not null,
  token text not null,
  chain text not null,
  deposit_tx text not null,
  deposit_txs text[],
  amount numeric(78, 0) not null,
  service_fee numeric(78, 0) not null,
  network_fee numeric(78, 0) not null,
  conversion_fee numeric(78, 0) not null,
  net numeric(78, 0) not null,
  usd_value numeric not null,
  usd_rate numeric not null,
  service_fee_usd numeric not null,
  network_fee_usd numeric not null,
  conversion_fee_usd numeric not null,
  net_usd numeric not null,
  destination text,
  destination_tag bigint,
  tx_id text,
  status text not null,
  note text,
  awaits_until timestamptz,
  -- plan again at this time (an awaited address); null when nothing is due
  replan_at timestamptz,
  conversion jsonb,
  -- what the settlement was planned from, so a waiting one can be planned again
  input jsonb not null,
  webhook_url text,
  transfer_intents text[],
  created_at timestamptz not null,
  updated_at timestamptz not null,
  completed_at timestamptz
);
create index settlements_by_merchant on settlements (merchant_id, livemode, created_at desc, id desc);
create index settlements_by_payment on settlements (payment_id);
create index settlements_replan_due on settlements (replan_at) where replan_at is not null;

-- One row per settled deposit: a deposit is settled once, whatever calls settlePayment again.
create table settlement_deposits (
  payment_id text not null,
  tx_id text not null,
  settlement_id text not null references settlements(id),
  primary key (payment_id, tx_id)
);

create table ledger_entries (
  seq bigserial primary key,
  id text not null unique,
  merchant_id text not null references merchants(id),
  livemode boolean not null,
  type text not null,
  token text not null,
  chain text not null,
  amount numeric(78, 0) not null,
  usd_amount numeric not null,
  reference text not null,
  note text,
  -- the payment a settlement entry belongs to (its trail); null for payouts and adjustments
  payment_id text,
  created_at timestamptz not null
);
create index ledger_by_merchant on ledger_entries (merchant_id, livemode, created_at desc, seq desc);
create index ledger_by_merchant_token on ledger_entries (merchant_id, livemode, token, created_at desc, seq desc);
create index ledger_by_payment on ledger_entries (payment_id, seq) where payment_id is not null;

-- available = sum of the ledger; pending_payout = amounts held by open payouts.
create table balances (
  merchant_id text not null references merchants(id),
  livemode boolean not null,
  token text not null,
  chain text not null,
  available numeric(78, 0) not null default 0,
  pending_payout numeric(78, 0) not null default 0,
  updated_at timestamptz not null,
  primary key (merchant_id, livemode, token)
);

create table payouts (
  id text primary key,
  merchant_id text not null references merchants(id),
  livemode boolean not null default true,
  token text not null,
  chain text not null,
  from_token text not null,
  from_chain text not null,
  amount numeric(78, 0) not null,
  network_fee numeric(78, 0) not null,
  send_amount numeric(78, 0) not null,
  amount_usd numeric not null,
  network_fee_usd numeric not null,
  send_amount_usd numeric not null,
  usd_rate numeric not null,
  address_id text not null,
  address text not null,
  tag bigint,
  status text not null,
  requested_by text not null,
  tx_id text,
  review_note text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  approved_at timestamptz,
  rejected_at timestamptz,
  sent_at timestamptz,
  canceled_at timestamptz
);
create index payouts_by_merchant on payouts (merchant_id, created_at desc, id desc);
create index payouts_by_status on payouts (status, created_at);
