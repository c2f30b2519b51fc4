-- The dashboard's figures (GET /merchant/dashboard) and chart (GET /merchant/dashboard/series) sum a
-- merchant's confirmed payments by day of confirmed_at and chain (src/payments/dashboard.ts,
-- series.ts). Nothing indexed confirmed payments by confirmation time, so each read every payment
-- of the merchant: with 1,000,000 payments of one merchant EXPLAIN ANALYZE measured 261 ms for a
-- 30-day chart (a sequential scan, whatever the days held) and 451 ms for the figures. This partial
-- index holds confirmed payments only, with the chain and amount the sums need: the chart reads its
-- days' rows alone (0.06 ms on that data) and the figures an index-only scan (210 ms: they still sum
-- every confirmed payment, for all_time). Plain CREATE INDEX: migrations run in one transaction.
create index if not exists payments_confirmed on payments (merchant_id, livemode, confirmed_at) include (chain, usd_amount)
  where status = 'confirmed';
