-- In-dashboard notifications (CONTRACT.md "Notifications"): stored per merchant; read marks are
-- per team member. `seq` orders them (newest first) when several share a time.
create table notifications (
  seq bigserial primary key,
  id text not null unique,
  merchant_id text not null references merchants(id),
  livemode boolean not null,
  category text not null,
  title text not null,
  body text not null,
  subject text,
  created_at timestamptz not null
);
create index notifications_by_merchant on notifications (merchant_id, livemode, seq desc);

create table notification_reads (
  user_id text not null,
  notification_id text not null references notifications(id),
  read_at timestamptz not null,
  primary key (user_id, notification_id)
);
