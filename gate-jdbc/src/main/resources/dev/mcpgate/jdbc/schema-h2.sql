-- MCP Gate claims table for H2 2.x. Times are epoch milliseconds on the database clock.
-- H2 counts VARCHAR lengths in UTF-16 units: 255 characters outside the BMP take 510.
CREATE TABLE IF NOT EXISTS ${table} (
  tenant              VARCHAR(510) NOT NULL,
  tool                VARCHAR(510) NOT NULL,
  idem_key            VARCHAR(510) NOT NULL,
  args_hash           VARCHAR(80)  NOT NULL,
  state               VARCHAR(16)  NOT NULL,
  lease_token         VARCHAR(64)  NOT NULL,
  attempt             INTEGER      NOT NULL,
  created_at_ms       BIGINT       NOT NULL,
  lease_expires_at_ms BIGINT       NOT NULL,
  expires_at_ms       BIGINT       NOT NULL,
  completed_at_ms     BIGINT,
  result_kind         VARCHAR(16),
  result              BINARY LARGE OBJECT,
  PRIMARY KEY (tenant, tool, idem_key)
);
CREATE INDEX IF NOT EXISTS ${index} ON ${table} (created_at_ms);
