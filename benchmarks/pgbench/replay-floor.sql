-- The floor of a replay: a primary-key SELECT of a completed row of fill.sql.
\set r random(1, 100000)
SELECT * FROM pgb_raw WHERE k = 'k-' || (:r)::bigint || '-' || (:r)::bigint;
