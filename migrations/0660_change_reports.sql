-- A change that processes keep views of is reported to the session that made it, at once, as well
-- as announced to every process after commit (NOTIFY): a NOTICE 'change reported' whose detail is
-- `<channel>:<payload>`, the channel and payload of the change's NOTIFY. The process that made the
-- change reads the notices of each connection as the pool takes it back (after its commit), so a
-- view it keeps is forgotten before its caller goes on, not when its own NOTIFY comes round
-- (src/platform/db/change-reports.ts). Filled by the database, so no writer can forget to report.
-- PGlite drops notices; there the process's own NOTIFY arrives with the COMMIT's answer instead.
create function report_change(channel text, payload text) returns void language plpgsql as $$
begin
  raise notice using message = 'change reported', detail = channel || ':' || payload;
end $$;

-- The payments' and deposits' changes, on the channel of migrations/0950 (which announces them).
create function report_payment_change() returns trigger language plpgsql as $$
begin
  if tg_table_name = 'payments' then
    perform report_change('payment_changed', old.id);
  elsif tg_op = 'DELETE' then
    perform report_change('payment_changed', old.payment_id);
  else
    perform report_change('payment_changed', new.payment_id);
    if tg_op = 'UPDATE' and old.payment_id is distinct from new.payment_id then
      perform report_change('payment_changed', old.payment_id);
    end if;
  end if;
  return null;
end $$;

create trigger payments_change_reported after update or delete on payments
  for each row execute function report_payment_change();

create trigger deposits_change_reported after insert or update or delete on deposits
  for each row execute function report_payment_change();

-- Who the payer is paying (merchant_name, store_name of the checkout's view): a rename or removal
-- of a merchant or store is announced on `payer_name_changed` as `merchant:<id>` or `store:<id>`,
-- and reported to the session that made it.
create function payer_name_changed() returns trigger language plpgsql as $$
declare
  named text := (case tg_table_name when 'merchants' then 'merchant' else 'store' end) || ':' || old.id;
begin
  if tg_op = 'DELETE' or old.name is distinct from new.name then
    perform pg_notify('payer_name_changed', named);
    perform report_change('payer_name_changed', named);
  end if;
  return null;
end $$;

create trigger merchants_name_changed after update of name or delete on merchants
  for each row execute function payer_name_changed();

create trigger stores_name_changed after update of name or delete on stores
  for each row execute function payer_name_changed();
