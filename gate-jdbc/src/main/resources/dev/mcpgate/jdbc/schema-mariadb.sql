-- MCP Gate claims table for MariaDB and MySQL. Times are epoch milliseconds on the database clock.
-- tenant, tool and key are VARBINARY so that they compare byte for byte: no case folding and no
-- trailing-space padding, whatever the server's default collation.
CREATE TABLE IF NOT EXISTS ${table} (
  tenant              VARBINARY(1020) NOT NULL,
  tool                VARBINARY(1020) NOT NULL,
  idem_key            VARBINARY(1020) NOT NULL,
  args_hash           VARCHAR(80) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  state               VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  lease_token         VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  attempt             INT          NOT NULL,
  created_at_ms       BIGINT       NOT NULL,
  lease_expires_at_ms BIGINT       NOT NULL,
  expires_at_ms       BIGINT       NOT NULL,
  completed_at_ms     BIGINT,
  result_kind         VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin,
  result              LONGBLOB,
  PRIMARY KEY (tenant, tool, idem_key),
  KEY ${index} (created_at_ms)
) ENGINE=InnoDB;
