-- Every change to a payment or its deposits is announced on the channel `payment_changed` with the
-- payment's id, after its transaction commits (NOTIFY). Each process keeps the payer views of
-- GET /checkout/{token} in memory and forgets a payment's the moment it hears it changed, whichever
-- process (or tool) changed it. A new payment is not announced: no process holds a view of it yet.
-- NOTIFY folds repeats of one payment within a transaction into one message.
create or replace function payment_changed_notify() returns trigger language plpgsql as $$
begin
  if tg_table_name = 'payments' then
    perform pg_notify('payment_changed', old.id);
  elsif tg_op = 'DELETE' then
    perform pg_notify('payment_changed', old.payment_id);
  else
    perform pg_notify('payment_changed', new.payment_id);
    if tg_op = 'UPDATE' and old.payment_id is distinct from new.payment_id then
      perform pg_notify('payment_changed', old.payment_id);
    end if;
  end if;
  return null;
end;
$$;

create trigger payments_changed_notify after update or delete on payments
  for each row execute function payment_changed_notify();

create trigger deposits_changed_notify after insert or update or delete on deposits
  for each row execute function payment_changed_notify();
