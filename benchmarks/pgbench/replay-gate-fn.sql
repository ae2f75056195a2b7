-- A replay through a PL/pgSQL claim function (pgb_claim, setup.sql): it reads the row and inserts
-- only when there is none, so a replay runs one SELECT inside the function.
\set r random(1, 100000)
SELECT * FROM pgb_claim('context_tenant-1', 'refund_order', 'k-' || (:r)::bigint || '-' || (:r)::bigint, 'v1:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', 'tok-' || (:r)::bigint, 5000, 86400000);
