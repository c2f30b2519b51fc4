-- Payments counted under a group (a payment link, a customer): one row per payment and group,
-- written from the outbox (payment.created, payment.confirmed) in the dispatch transaction. The
-- primary key and `confirmed_at is null` make each count happen once however often an event is
-- handed over.
create table grouped_payments (
  group_id text not null,
  payment_id text not null,
  usd_amount numeric not null,
  created_at timestamptz not null,
  confirmed_at timestamptz,
  primary key (group_id, payment_id)
);
create index grouped_payments_recent on grouped_payments (group_id, created_at desc, payment_id desc);
