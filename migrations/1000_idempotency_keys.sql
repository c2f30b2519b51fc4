-- Idempotency-Key (CONTRACT "Developer platform"): the first answer to a POST for a key, per
-- merchant, mode and key, kept 24 hours and replayed for the same request. A row is 'running'
-- while its first request is in flight (other processes answer 409 until `locked_until`, after
-- which a crashed request's key may be claimed again), then 'done' with the answer sealed.
create table idempotency_keys (
  merchant_id text not null,
  livemode boolean not null,
  key text not null,
  fingerprint text not null,
  state text not null check (state in ('running', 'done')),
  locked_until timestamptz,
  status_code integer,
  content_type text,
  sealed_body text,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  primary key (merchant_id, livemode, key)
);
create index idempotency_keys_expires_at on idempotency_keys (expires_at);
