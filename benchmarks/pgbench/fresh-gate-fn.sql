-- A fresh call through the PL/pgSQL claim function (pgb_claim, setup.sql), then the completion.
\set r random(1, 2000000000)
\set s random(1, 2000000000)
SELECT * FROM pgb_claim('context_tenant-1', 'refund_order', 'k-' || (:r)::bigint || '-' || (:s)::bigint, 'v1:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', 'tok-' || (:r)::bigint, 5000, 86400000);
UPDATE pgb_a SET state = 'COMPLETED', completed_at_ms = (EXTRACT(EPOCH FROM statement_timestamp()) * 1000)::bigint, expires_at_ms = (EXTRACT(EPOCH FROM statement_timestamp()) * 1000)::bigint + 86400000, result_kind = 'VALUE', result = '\x7b226f6b223a747275657d'::bytea WHERE tenant = 'context_tenant-1' AND tool = 'refund_order' AND idem_key = 'k-' || (:r)::bigint || '-' || (:s)::bigint AND lease_token = 'tok-' || (:r)::bigint AND state <> 'COMPLETED';
