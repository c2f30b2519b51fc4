-- Spec 6.1 Routing: "When nothing is set, nothing is sent and nothing is replayed after a URL is set
-- later." The account URL is read when the outbox dispatches an event, which may be long after the
-- event was raised (the process was down, the outbox behind): without a bound, events raised while a
-- mode had no URL went to a URL set meanwhile. `url_since_seq` is the events.seq of the `webhook:update`
-- event written in the transaction that set the URL of a mode that had none; events before it go to
-- the account URL no more (webhooks/subscriber.ts). A URL changed from one to another keeps it.
-- Null: no bound (rows from before this column, and modes never given a URL).
alter table webhooks add column url_since_seq bigint;
