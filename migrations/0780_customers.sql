-- Customers (CONTRACT.md "Customers"): one per merchant, mode and email (any case), made from the
-- customer_email of payments (from the outbox) or by hand. `payments`, `volume_usd` and the
-- payment times are kept through grouped_payments.
create table customers (
  id text primary key,
  merchant_id text not null references merchants(id),
  livemode boolean not null,
  email text not null,
  name text,
  metadata jsonb,
  payments bigint not null default 0,
  volume_usd numeric not null default 0,
  first_payment_at timestamptz,
  last_payment_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create unique index customers_by_email on customers (merchant_id, livemode, lower(email));
create index customers_by_merchant on customers (merchant_id, livemode, created_at desc, id desc);

-- Payments made before this migration: their customers and counts, as the outbox would have made
-- them. Ids are derived from the key (opaque, stable); events still waiting find these rows and
-- change nothing.
insert into customers (id, merchant_id, livemode, email, payments, volume_usd, first_payment_at, last_payment_at, created_at, updated_at)
select 'cus_' || substr(md5(merchant_id || ':' || livemode::text || ':' || lower(trim(customer_email))), 1, 26),
  merchant_id, livemode, lower(trim(customer_email)), count(*),
  coalesce(sum(usd_amount) filter (where status = 'confirmed'), 0),
  min(created_at), max(created_at), min(created_at), max(created_at)
from payments where customer_email is not null and trim(customer_email) <> ''
group by merchant_id, livemode, lower(trim(customer_email));

insert into grouped_payments (group_id, payment_id, usd_amount, created_at, confirmed_at)
select c.id, p.id, p.usd_amount, p.created_at, case when p.status = 'confirmed' then coalesce(p.confirmed_at, p.updated_at) end
from payments p
join customers c on c.merchant_id = p.merchant_id and c.livemode = p.livemode and lower(c.email) = lower(trim(p.customer_email))
where p.customer_email is not null;
