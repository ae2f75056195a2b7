-- The ceiling of a replay that reads the gate's own row: a plain primary-key SELECT of pgb_a with
-- the clock, no CTE and no insert (what a read-first claim would send before its INSERT).
\set r random(1, 100000)
SELECT *, (EXTRACT(EPOCH FROM statement_timestamp()) * 1000)::bigint AS now_ms FROM pgb_a WHERE tenant = 'context_tenant-1' AND tool = 'refund_order' AND idem_key = 'k-' || (:r)::bigint || '-' || (:r)::bigint;
