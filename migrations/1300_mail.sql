-- E-mail of notifications (README "E-mail"). mail_queue is its own queue, as webhook deliveries
-- are: the outbox subscriber of `notification` events inserts one row per recipient in the
-- dispatch transaction (unique per notification and member, so a batch handed over twice queues
-- each mail once); workers claim due rows with FOR UPDATE SKIP LOCKED under a claim and a lease.
create table mail_queue (
  id text primary key,
  notification_id text not null references notifications(id),
  merchant_id text not null references merchants(id),
  user_id text not null,
  to_address text not null,
  subject text not null,
  body text not null,
  -- pending (due at next_attempt_at), sending (claimed until lease_until), sent, failed (gave up)
  status text not null,
  attempts integer not null default 0,
  next_attempt_at timestamptz not null,
  claim text,
  lease_until timestamptz,
  last_error text,
  sent_at timestamptz,
  created_at timestamptz not null,
  unique (notification_id, user_id)
);
create index mail_queue_pending on mail_queue (next_attempt_at) where status = 'pending';
create index mail_queue_sending on mail_queue (lease_until) where status = 'sending';

-- A member's own choice of what is e-mailed to them; no row: the defaults (the referral payout
-- requests only).
create table mail_preferences (
  user_id text primary key references users(id) on delete cascade,
  referral_payout_requested boolean not null,
  categories text[] not null,
  updated_at timestamptz not null
);
