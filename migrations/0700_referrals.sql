-- The referral program (CONTRACT.md "Referral program"). Every merchant is an affiliate with one
-- code; its referrals, their commissions and the referral balance (USDT_TRC20, base units of 6
-- decimals) live here, apart from the merchant's own balances and ledger.
create table affiliates (
  merchant_id text primary key references merchants(id),
  code text not null unique,
  clicks bigint not null default 0,
  available numeric(78, 0) not null default 0,
  pending_payout numeric(78, 0) not null default 0,
  paid_out numeric(78, 0) not null default 0,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  check (available >= 0 and pending_payout >= 0 and paid_out >= 0)
);

-- Merchants that existed before the program get their code now: 8 characters of A-Z0-9, drawn
-- again on the (unlikely) meeting of an existing one.
do $$
declare
  m record;
  c text;
begin
  for m in select id, created_at from merchants where id not in (select merchant_id from affiliates) loop
    loop
      select string_agg(substr('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 1 + floor(random() * 36)::int, 1), '') into c
        from generate_series(1, 8);
      exit when not exists (select 1 from affiliates where code = c);
    end loop;
    insert into affiliates (merchant_id, code, created_at, updated_at) values (m.id, c, m.created_at, m.created_at);
  end loop;
end $$;

-- A merchant is referred at most once. The counters are kept with each commission, so listing
-- referrals reads no commissions.
create table referrals (
  merchant_id text primary key references merchants(id),
  affiliate_id text not null references merchants(id),
  code text not null,
  signed_up_at timestamptz not null,
  status text not null,
  void_reason text,
  voided_at timestamptz,
  attached_by text,
  -- null: earns as long as the referred merchant uses the service (REFERRAL_MONTHS=0)
  earns_until timestamptz,
  payments integer not null default 0,
  volume_usd numeric not null default 0,
  earned numeric(78, 0) not null default 0,
  last_earned_at timestamptz,
  created_at timestamptz not null,
  check (affiliate_id <> merchant_id)
);
create index referrals_by_affiliate on referrals (affiliate_id, created_at desc, merchant_id);

-- One commission per live deposit, keyed `<payment id>:<transaction id>`: crediting it twice is
-- impossible.
create table commissions (
  id text primary key,
  affiliate_id text not null references merchants(id),
  merchant_id text not null references merchants(id),
  payment_id text not null,
  deposit_usd numeric not null,
  fee_usd numeric not null,
  rate_bps integer not null,
  amount numeric(78, 0) not null,
  created_at timestamptz not null
);
create index commissions_by_affiliate on commissions (affiliate_id, created_at desc, id);
create index commissions_by_payment on commissions (payment_id);

create table affiliate_payouts (
  id text primary key,
  affiliate_id text not null references merchants(id),
  amount numeric(78, 0) not null,
  network_fee numeric(78, 0) not null,
  send_amount numeric(78, 0) not null,
  address_id text,
  address text not null,
  status text not null,
  due_at timestamptz not null,
  requested_by text not null,
  tx_id text,
  note text,
  approved_at timestamptz,
  paid_at timestamptz,
  rejected_at timestamptz,
  canceled_by text,
  canceled_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index affiliate_payouts_by_affiliate on affiliate_payouts (affiliate_id, created_at desc);
-- "a payout is open already": at most one requested or processing payout per affiliate.
create unique index affiliate_payouts_one_open on affiliate_payouts (affiliate_id) where status in ('requested', 'processing');

-- The referral balance's own statement: `available` is always the sum of its entries
-- (commission, payout_hold, payout_release, adjustment; signed base units of USDT_TRC20).
create table affiliate_entries (
  seq bigserial primary key,
  id text not null unique,
  affiliate_id text not null references merchants(id),
  type text not null,
  amount numeric(78, 0) not null,
  reference text not null,
  note text,
  created_at timestamptz not null
);
create index affiliate_entries_by_affiliate on affiliate_entries (affiliate_id, seq);
