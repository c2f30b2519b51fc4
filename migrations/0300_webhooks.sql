-- Webhook endpoints (one per merchant and mode) and deliveries (spec part 2 Webhook, Delivery).
-- The deliveries table is also the delivery queue: workers take due rows with FOR UPDATE SKIP LOCKED.
create table webhooks (
  merchant_id text not null,
  livemode boolean not null,
  url text,
  -- the signing secret, AES-256-GCM encrypted with a key derived from AUTH_SECRET (never stored in clear)
  secret_enc text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (merchant_id, livemode)
);

create table deliveries (
  id text primary key,
  merchant_id text not null,
  livemode boolean not null,
  target text not null check (target in ('account', 'payment')),
  url text,
  -- host of url, lower case: attempts are limited per destination host
  host text not null default '',
  payment_id text,
  event_id text not null,
  event_type text not null,
  payload text not null,
  status text not null check (status in ('pending', 'sending', 'delivered', 'failed', 'resolved')),
  attempts integer not null default 0,
  max_attempts integer not null default 7,
  next_attempt_at timestamptz not null,
  -- while sending: the worker's claim and until when it holds it (a killed worker's row is taken again after)
  claim text,
  lease_until timestamptz,
  last_status_code integer,
  last_error text,
  last_attempt_at timestamptz,
  delivered_at timestamptz,
  resolved_at timestamptz,
  resolution_note text,
  history jsonb not null default '[]'::jsonb,
  created_at timestamptz not null,
  unique (event_id, target)
);
create index deliveries_due on deliveries (next_attempt_at) where status = 'pending';
create index deliveries_leased on deliveries (lease_until) where status = 'sending';
create index deliveries_by_merchant on deliveries (merchant_id, livemode, created_at desc);
create index deliveries_by_payment on deliveries (payment_id, created_at) where payment_id is not null;
create index deliveries_by_status on deliveries (status, created_at desc);
