-- 100,000 completed rows in pgb_a and pgb_raw (keys k-i-i), for the replay scripts. After setup.sql.
INSERT INTO pgb_a SELECT 'context_tenant-1','refund_order','k-'||i||'-'||i,'v1:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef','COMPLETED','tok-'||i,1,0,0,99999999999999,0,'VALUE','\x7b226f6b223a747275657d'::bytea FROM generate_series(1,100000) i;
INSERT INTO pgb_raw SELECT 'k-'||i||'-'||i,'tok-'||i,'COMPLETED','\x7b226f6b223a747275657d'::bytea FROM generate_series(1,100000) i;
VACUUM ANALYZE pgb_a; VACUUM ANALYZE pgb_raw;
