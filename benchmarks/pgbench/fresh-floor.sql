-- The raw floor of JdbcThroughput: an insert-if-absent and a token-checked UPDATE, auto-committed.
\set r random(1, 2000000000)
\set s random(1, 2000000000)
INSERT INTO pgb_raw VALUES ('k-' || (:r)::bigint || '-' || (:s)::bigint, 'tok-' || (:r)::bigint, 'IN_PROGRESS', NULL) ON CONFLICT DO NOTHING;
UPDATE pgb_raw SET state = 'COMPLETED', result = '\x7b226f6b223a747275657d'::bytea WHERE k = 'k-' || (:r)::bigint || '-' || (:s)::bigint AND token = 'tok-' || (:r)::bigint;
