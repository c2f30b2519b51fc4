-- The dispatcher's queue: the seq of every event not yet handed over. Before, each event was marked
-- by an update of its own row (dispatched_at), which PostgreSQL could not do in place (the column
-- was in an index predicate): a new copy of a ~1 KB row and four index entries per event. A row
-- here costs a few bytes to add and to delete. Every writer of events adds the seq in the same
-- statement (appendEvent, the payment creation statement, the webhook delivery events).
create table outbox_pending (seq bigint primary key);
insert into outbox_pending (seq) select seq from events where dispatched_at is null;

drop index events_undispatched;
alter table events drop column dispatched_at;
