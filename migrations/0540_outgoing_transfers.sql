-- Every transfer the service makes on chain (spec 3 Settlement status, CONTRACT.md "Live chains",
-- DESIGN.md principle 3): the intent is a row written in the transaction of the change that asks
-- for it; each signed transaction is an attempt row committed before it is broadcast, so after a
-- crash the same signed bytes are sent again and never a second, different transaction.

-- status: recorded (intent, nothing signed) → signed (an attempt stored, not known to be accepted)
-- → sent (a node took it) → mined (in a block) → final (CONFIRMATIONS_<CHAIN>); or failed, canceled.
create table outgoing_transfers (
  id text primary key,
  -- the order transfers were recorded in (several in one transaction share created_at): a sender sends in this order
  seq bigserial not null unique,
  chain text not null,
  livemode boolean not null,
  -- settlement, service_fee, sweep, gas_topup, payout
  purpose text not null,
  token text not null,
  from_address text not null,
  -- deposit: one of the payments' deposit addresses (from_index its derivation index); hot: the hot wallet
  from_role text not null,
  from_index integer,
  to_address text not null,
  to_tag bigint,
  -- base units; with pays_own_fee the network fees of this reference's transfers from this address
  -- come off it (a native coin's sweep or the service's share), otherwise it arrives exactly
  amount numeric(78, 0) not null,
  pays_own_fee boolean not null,
  -- the settlement, the payout, or (a gas top-up) the transfer it funds
  reference text not null,
  -- a gas top-up that must be mined first
  depends_on text,
  status text not null,
  -- funds: the hot wallet must be funded before this can be sent (needs_funding)
  waiting text,
  nonce bigint,
  -- a broadcast of this transfer had no clear answer: it may be on a node, so its nonce is never given away
  uncertain boolean not null default false,
  tx_id text,
  block bigint,
  sent_amount numeric(78, 0),
  -- network fees of this transfer's reverted transactions, and of the one mined now
  fees_paid numeric(78, 0) not null default 0,
  mined_fee numeric(78, 0),
  failures integer not null default 0,
  replacements integer not null default 0,
  next_at timestamptz not null,
  last_error text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  final_at timestamptz
);
create index outgoing_transfers_active on outgoing_transfers (chain, seq) where status in ('recorded', 'signed', 'sent', 'mined');
create index outgoing_transfers_by_reference on outgoing_transfers (reference);
create index outgoing_transfers_by_sender on outgoing_transfers (chain, livemode, from_address) where status in ('recorded', 'signed', 'sent', 'mined');
-- an approved payout is sent once, however often its approval is handed over
create unique index outgoing_transfers_one_per_payout on outgoing_transfers (reference) where purpose = 'payout';

-- One signed transaction of a transfer: the first, a re-signing after a refusal, or a replacement
-- with a higher fee (same nonce). Any of them may be the one that is mined.
create table outgoing_transfer_attempts (
  transfer_id text not null references outgoing_transfers(id),
  n integer not null,
  tx_id text not null,
  raw text not null,
  nonce bigint,
  value numeric(78, 0) not null,
  -- fee fields as signed (gas limit, EIP-1559 or legacy price), decimal strings
  fee jsonb not null,
  -- the most this attempt can spend on the network (gas limit × max price)
  fee_reserve numeric(78, 0) not null,
  created_at timestamptz not null,
  broadcast_at timestamptz,
  primary key (transfer_id, n)
);
create index outgoing_transfer_attempts_by_tx on outgoing_transfer_attempts (tx_id);

-- The next nonce of each sending address: taken under this row's lock when a transfer is signed.
create table sender_nonces (
  chain text not null,
  livemode boolean not null,
  address text not null,
  next_nonce bigint not null,
  updated_at timestamptz not null,
  primary key (chain, livemode, address)
);
