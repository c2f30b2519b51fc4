-- Payment links (CONTRACT.md "Payment links"): a reusable link that makes a new payment each time
-- a customer opens it. `last_number` numbers the order ids link_<id>_<n>; `payments` and
-- `volume_usd` are kept from the outbox through grouped_payments.
create table payment_links (
  id text primary key,
  merchant_id text not null references merchants(id),
  livemode boolean not null,
  store_id text references stores(id),
  slug text not null unique,
  name text not null,
  amount_usd numeric not null,
  description text,
  tokens text[],
  success_url text,
  cancel_url text,
  active boolean not null default true,
  last_number bigint not null default 0,
  payments bigint not null default 0,
  volume_usd numeric not null default 0,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index payment_links_by_merchant on payment_links (merchant_id, livemode, created_at desc, id desc);
