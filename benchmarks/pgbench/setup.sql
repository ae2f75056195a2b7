-- The claims table as gate-jdbc creates it (pgb_a, with its purge index), the same without the
-- purge index (pgb_b), and the raw floor's table (pgb_raw). Variants of pgb_a for the scripts that
-- try another key: its key columns COLLATE "C" (pgb_c) or "en-US-x-icu" (pgb_u), or one 32-byte
-- digest as the key (pgb_d). Run before each round: fresh tables.
DROP TABLE IF EXISTS pgb_a;
CREATE TABLE pgb_a (
  tenant VARCHAR(255) NOT NULL, tool VARCHAR(255) NOT NULL, idem_key VARCHAR(255) NOT NULL,
  args_hash VARCHAR(80) NOT NULL, state VARCHAR(16) NOT NULL, lease_token VARCHAR(64) NOT NULL,
  attempt INTEGER NOT NULL, created_at_ms BIGINT NOT NULL, lease_expires_at_ms BIGINT NOT NULL,
  expires_at_ms BIGINT NOT NULL, completed_at_ms BIGINT, result_kind VARCHAR(16), result BYTEA,
  PRIMARY KEY (tenant, tool, idem_key)) WITH (fillfactor = 80);
CREATE INDEX pgb_a_created ON pgb_a (created_at_ms);
DROP TABLE IF EXISTS pgb_b;
CREATE TABLE pgb_b (
  tenant VARCHAR(255) NOT NULL, tool VARCHAR(255) NOT NULL, idem_key VARCHAR(255) NOT NULL,
  args_hash VARCHAR(80) NOT NULL, state VARCHAR(16) NOT NULL, lease_token VARCHAR(64) NOT NULL,
  attempt INTEGER NOT NULL, created_at_ms BIGINT NOT NULL, lease_expires_at_ms BIGINT NOT NULL,
  expires_at_ms BIGINT NOT NULL, completed_at_ms BIGINT, result_kind VARCHAR(16), result BYTEA,
  PRIMARY KEY (tenant, tool, idem_key)) WITH (fillfactor = 80);
DROP TABLE IF EXISTS pgb_raw;
CREATE TABLE pgb_raw (k VARCHAR(255) PRIMARY KEY, token VARCHAR(64) NOT NULL, state VARCHAR(16) NOT NULL, result BYTEA);
DROP TABLE IF EXISTS pgb_c;
CREATE TABLE pgb_c (
  tenant VARCHAR(255) COLLATE "C" NOT NULL, tool VARCHAR(255) COLLATE "C" NOT NULL, idem_key VARCHAR(255) COLLATE "C" NOT NULL,
  args_hash VARCHAR(80) NOT NULL, state VARCHAR(16) NOT NULL, lease_token VARCHAR(64) NOT NULL,
  attempt INTEGER NOT NULL, created_at_ms BIGINT NOT NULL, lease_expires_at_ms BIGINT NOT NULL,
  expires_at_ms BIGINT NOT NULL, completed_at_ms BIGINT, result_kind VARCHAR(16), result BYTEA,
  PRIMARY KEY (tenant, tool, idem_key)) WITH (fillfactor = 80);
CREATE INDEX pgb_c_created ON pgb_c (created_at_ms);
DROP TABLE IF EXISTS pgb_u;
CREATE TABLE pgb_u (
  tenant VARCHAR(255) COLLATE "en-US-x-icu" NOT NULL, tool VARCHAR(255) COLLATE "en-US-x-icu" NOT NULL, idem_key VARCHAR(255) COLLATE "en-US-x-icu" NOT NULL,
  args_hash VARCHAR(80) NOT NULL, state VARCHAR(16) NOT NULL, lease_token VARCHAR(64) NOT NULL,
  attempt INTEGER NOT NULL, created_at_ms BIGINT NOT NULL, lease_expires_at_ms BIGINT NOT NULL,
  expires_at_ms BIGINT NOT NULL, completed_at_ms BIGINT, result_kind VARCHAR(16), result BYTEA,
  PRIMARY KEY (tenant, tool, idem_key)) WITH (fillfactor = 80);
CREATE INDEX pgb_u_created ON pgb_u (created_at_ms);
DROP TABLE IF EXISTS pgb_d;
CREATE TABLE pgb_d (
  k BYTEA NOT NULL, tenant VARCHAR(255) NOT NULL, tool VARCHAR(255) NOT NULL, idem_key VARCHAR(255) NOT NULL,
  args_hash VARCHAR(80) NOT NULL, state VARCHAR(16) NOT NULL, lease_token VARCHAR(64) NOT NULL,
  attempt INTEGER NOT NULL, created_at_ms BIGINT NOT NULL, lease_expires_at_ms BIGINT NOT NULL,
  expires_at_ms BIGINT NOT NULL, completed_at_ms BIGINT, result_kind VARCHAR(16), result BYTEA,
  PRIMARY KEY (k)) WITH (fillfactor = 80);
CREATE INDEX pgb_d_created ON pgb_d (created_at_ms);
-- Two claim functions for the scripts that try the claim in PL/pgSQL (the *-fn and *-union ones).
CREATE OR REPLACE FUNCTION pgb_claim(p_tenant varchar, p_tool varchar, p_key varchar, p_hash varchar,
  p_token varchar, p_lease bigint, p_retention bigint)
RETURNS TABLE (o_tenant varchar, o_tool varchar, o_idem_key varchar, o_args_hash varchar, o_state varchar,
  o_lease_token varchar, o_attempt integer, o_created_at_ms bigint, o_lease_expires_at_ms bigint,
  o_expires_at_ms bigint, o_completed_at_ms bigint, o_result_kind varchar, o_result bytea,
  now_ms bigint, inserted boolean)
LANGUAGE plpgsql AS $$
DECLARE n bigint := (EXTRACT(EPOCH FROM statement_timestamp()) * 1000)::bigint;
BEGIN
  RETURN QUERY SELECT a.*, n, FALSE FROM pgb_a a
    WHERE a.tenant = p_tenant AND a.tool = p_tool AND a.idem_key = p_key;
  IF FOUND THEN RETURN; END IF;
  RETURN QUERY INSERT INTO pgb_a AS a VALUES (p_tenant, p_tool, p_key, p_hash, 'IN_PROGRESS', p_token, 1,
      n, n + p_lease, n + p_retention, NULL, NULL, NULL)
    ON CONFLICT (tenant, tool, idem_key) DO NOTHING RETURNING a.*, n, TRUE;
  IF FOUND THEN RETURN; END IF;
  RETURN QUERY SELECT a.*, n, FALSE FROM pgb_a a
    WHERE a.tenant = p_tenant AND a.tool = p_tool AND a.idem_key = p_key;
END $$;
CREATE OR REPLACE FUNCTION pgb_insert(p_tenant varchar, p_tool varchar, p_key varchar, p_hash varchar,
  p_token varchar, p_lease bigint, p_retention bigint)
RETURNS TABLE (o_tenant varchar, o_tool varchar, o_idem_key varchar, o_args_hash varchar, o_state varchar,
  o_lease_token varchar, o_attempt integer, o_created_at_ms bigint, o_lease_expires_at_ms bigint,
  o_expires_at_ms bigint, o_completed_at_ms bigint, o_result_kind varchar, o_result bytea,
  now_ms bigint, inserted boolean)
LANGUAGE plpgsql AS $$
DECLARE n bigint := (EXTRACT(EPOCH FROM statement_timestamp()) * 1000)::bigint;
BEGIN
  RETURN QUERY INSERT INTO pgb_a AS a VALUES (p_tenant, p_tool, p_key, p_hash, 'IN_PROGRESS', p_token, 1,
      n, n + p_lease, n + p_retention, NULL, NULL, NULL)
    ON CONFLICT (tenant, tool, idem_key) DO NOTHING RETURNING a.*, n, TRUE;
  IF FOUND THEN RETURN; END IF;
  RETURN QUERY SELECT a.*, n, FALSE FROM pgb_a a
    WHERE a.tenant = p_tenant AND a.tool = p_tool AND a.idem_key = p_key;
END $$;
