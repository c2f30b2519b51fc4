-- The outbox: every state change writes its event here in the same transaction.
create table events (
  seq bigserial primary key,
  id text not null unique,
  type text not null,
  merchant_id text,
  payment_id text,
  livemode boolean not null,
  data jsonb not null,
  -- a payment's own webhook_url, when its payment.* and settlement.* events go there (spec 6.1 Routing)
  webhook_url text,
  created_at timestamptz not null,
  dispatched_at timestamptz
);
create index events_undispatched on events (seq) where dispatched_at is null;
create index events_by_payment on events (payment_id, seq);
create index events_by_merchant on events (merchant_id, seq);
