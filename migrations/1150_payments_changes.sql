-- A counter moved by every statement that adds or removes payments (or moves one to another
-- merchant or mode). On the embedded engine, where transactions run one after another on one
-- connection, an unmoved counter means an unchanged set of payments: the payments list keeps its
-- unfiltered `total` between pages instead of counting every row again (src/payments/list-totals.ts).
-- A statement-level trigger and a sequence: no row lock, nothing per row.
create sequence payments_changes;

create function payments_changed() returns trigger language plpgsql as $$
begin
  perform nextval('payments_changes');
  return null;
end $$;

create trigger payments_changed after insert or delete or update of merchant_id, livemode on payments
  for each statement execute function payments_changed();

create trigger payments_truncated after truncate on payments
  for each statement execute function payments_changed();
