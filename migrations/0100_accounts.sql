-- Accounts: merchants, their team, sessions, API keys, stores; and the audit log.
create table merchants (
  id text primary key,
  name text not null,
  status text not null default 'active',
  fee_bps integer not null default 100,
  live_enabled boolean not null default false,
  underpaid_tolerance_bps integer not null default 50,
  accept_other_assets boolean not null default false,
  settlement text not null default 'direct',
  payout_schedule text not null default 'daily',
  payout_scheduled_at timestamptz,
  fees_paid_by_customer boolean not null default true,
  convert_into text not null default 'cheapest',
  hide_below_minimum boolean not null default false,
  -- null: every token, including tokens added later; otherwise the chosen list
  enabled_tokens text[],
  referral_code text,
  created_at timestamptz not null,
  updated_at timestamptz not null
);

create table users (
  id text primary key,
  merchant_id text not null references merchants(id),
  email text not null unique,
  password_hash text not null,
  role text not null,
  created_at timestamptz not null,
  last_login_at timestamptz
);
create index users_by_merchant on users (merchant_id, created_at);

create table sessions (
  id text primary key,
  user_id text not null,
  merchant_id text not null,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  revoked_at timestamptz,
  revoked_reason text
);
create index sessions_by_user on sessions (user_id);

-- Every refresh token ever issued, hashed; a used one is marked replaced, and presenting it again
-- (reuse) revokes its session.
create table refresh_tokens (
  token_hash text primary key,
  session_id text not null references sessions(id),
  created_at timestamptz not null,
  replaced_at timestamptz
);
create index refresh_tokens_by_session on refresh_tokens (session_id);

create table stores (
  id text primary key,
  merchant_id text not null references merchants(id),
  name text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index stores_by_merchant on stores (merchant_id, created_at);

create table api_keys (
  id text primary key,
  merchant_id text not null references merchants(id),
  livemode boolean not null,
  store_id text references stores(id),
  label text not null,
  access text not null default 'full',
  last4 text not null,
  secret_hash text not null unique,
  created_by text,
  created_at timestamptz not null,
  last_used_at timestamptz,
  revoked_at timestamptz
);
create index api_keys_by_merchant on api_keys (merchant_id, livemode, created_at);

create table audit_entries (
  id text primary key,
  merchant_id text not null,
  at timestamptz not null,
  action text not null,
  actor jsonb not null,
  subject text,
  payment_id text,
  before jsonb,
  after jsonb,
  note text
);
create index audit_by_merchant on audit_entries (merchant_id, at desc, id desc);
