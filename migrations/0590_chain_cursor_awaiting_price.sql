-- Whether a chain may have deposits waiting for their coin's price (deposits_awaiting_price): kept
-- on the chain's cursor row, which every watcher pass reads anyway, so a pass asks that (almost
-- always empty) table only while this is set. Set in the transaction that keeps a deposit there;
-- cleared only under the cursor row's lock once the table holds none of the chain's, so whichever
-- process watches the chain next sees it.
alter table chain_cursors add column awaiting_price boolean not null default false;
update chain_cursors c set awaiting_price = exists (select 1 from deposits_awaiting_price d where d.chain = c.chain);
