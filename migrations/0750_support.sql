-- Support chat (CONTRACT.md "Support chat"): one conversation per merchant with the service's team.
-- A conversation row holds the read mark of each side and points at its latest message.
create table support_conversations (
  merchant_id text primary key references merchants(id),
  last_message_id text,
  last_message_at timestamptz,
  merchant_read_at timestamptz,
  support_read_at timestamptz,
  created_at timestamptz not null
);
create index support_conversations_recent on support_conversations (last_message_at desc, merchant_id) where last_message_at is not null;

create table support_messages (
  id text primary key,
  merchant_id text not null references merchants(id),
  -- 'merchant' or 'support'
  side text not null,
  -- {id, email, role} of a member, {name} of support, as they were when it was written
  author jsonb not null,
  -- the member who wrote it (edits and deletions are theirs); null for support
  author_user_id text,
  -- '' once deleted: the message keeps its place
  body text not null,
  created_at timestamptz not null,
  edited_at timestamptz,
  deleted_at timestamptz
);
create index support_messages_by_merchant on support_messages (merchant_id, created_at, id);
