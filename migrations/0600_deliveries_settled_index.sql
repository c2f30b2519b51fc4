-- deliveries_by_status (status, created_at desc) served one query: the operator's list of
-- deliveries in one status (/admin/deliveries?status=). Yet every version of every row paid an
-- entry in it, and a delivery's row gets a new version at each step (inserted pending, claimed
-- sending, recorded pending, delivered or failed: the status is in the queue's partial indexes, so
-- no update of it is HOT), which was a fifth of the index entries a test ping wrote (issue 17).
-- Kept for the settled statuses only: a pending or sending row is listed by created_at through
-- deliveries_due or deliveries_leased (the queue, short) and a sort. The dashboard's lists go by
-- deliveries_by_merchant, a payment's by deliveries_by_payment.
drop index deliveries_by_status;
create index deliveries_settled on deliveries (status, created_at desc) where status in ('delivered', 'failed', 'resolved');
