-- MCP Gate claims table for PostgreSQL. Times are epoch milliseconds on the database clock.
-- PostgreSQL counts VARCHAR lengths in characters (code points), as the key rule does.
CREATE TABLE IF NOT EXISTS ${table} (
  tenant              VARCHAR(255) NOT NULL,
  tool                VARCHAR(255) NOT NULL,
  idem_key            VARCHAR(255) NOT NULL,
  args_hash           VARCHAR(80)  NOT NULL,
  state               VARCHAR(16)  NOT NULL,
  lease_token         VARCHAR(64)  NOT NULL,
  attempt             INTEGER      NOT NULL,
  created_at_ms       BIGINT       NOT NULL,
  lease_expires_at_ms BIGINT       NOT NULL,
  expires_at_ms       BIGINT       NOT NULL,
  completed_at_ms     BIGINT,
  result_kind         VARCHAR(16),
  result              BYTEA,
  PRIMARY KEY (tenant, tool, idem_key)
) WITH (fillfactor = 80);
-- Purge walks this index in claim order. No index covers a column the completion changes, so
-- the completion is a HOT update (fillfactor leaves room on the page for it).
CREATE INDEX IF NOT EXISTS ${index} ON ${table} (created_at_ms);
