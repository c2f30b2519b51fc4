-- Durable due work (payment deadlines, simulation steps): one row per (kind, key), claimed with
-- FOR UPDATE SKIP LOCKED by whichever process is free, deleted in the transaction of its work.
create table timers (
  kind text not null,
  key text not null,
  run_at timestamptz not null,
  payload jsonb not null default '{}'::jsonb,
  attempts integer not null default 0,
  last_error text,
  primary key (kind, key)
);
create index timers_due on timers (run_at);
