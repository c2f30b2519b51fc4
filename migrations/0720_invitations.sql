-- Invitations to join a merchant's team (CONTRACT.md "Invitations"). The one-time token is shown
-- once in `accept_url`; only its SHA-256 is kept. `expired` is not stored: a pending invitation
-- past `expires_at` is expired.
create table invitations (
  id text primary key,
  merchant_id text not null references merchants(id),
  email text not null,
  role text not null,
  token_hash text not null unique,
  status text not null,
  invited_by text not null,
  expires_at timestamptz not null,
  accepted_at timestamptz,
  revoked_at timestamptz,
  user_id text,
  created_at timestamptz not null
);
create index invitations_by_merchant on invitations (merchant_id, created_at desc);
