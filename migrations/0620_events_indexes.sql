-- Fewer index entries per event: every payment creation writes two events (its audit entry's and
-- payment.created) and every webhook attempt one, so each index of events is paid for on the
-- hottest writes.
-- - events_by_merchant: no query reads events by merchant (the dashboard lists audit entries and
--   deliveries from their own tables); dropped.
-- - events_by_payment: read only for one payment's events (its timeline); events of no payment
--   (audit entries, webhook deliveries, account events) are left out of it.
drop index if exists events_by_merchant;
drop index if exists events_by_payment;
create index events_by_payment on events (payment_id, seq) where payment_id is not null;
