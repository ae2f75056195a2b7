-- MCP Gate audit trail for MariaDB and MySQL: one append-only row per decision. The claims table
-- is the lock, this is the narrative. Times are epoch milliseconds on the application's clock.
-- tenant, tool and key are VARBINARY, as in the claims table: they compare byte for byte.
CREATE TABLE IF NOT EXISTS ${table} (
  id              BIGINT AUTO_INCREMENT PRIMARY KEY,
  at_ms           BIGINT          NOT NULL,
  tenant          VARBINARY(1020),
  tool            VARBINARY(1020) NOT NULL,
  idem_key        VARBINARY(1020),
  args_hash       VARCHAR(80) CHARACTER SET ascii COLLATE ascii_bin,
  arguments       VARCHAR(4000)   NOT NULL,
  decision        VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  reason          VARCHAR(1000),
  attempt         INTEGER         NOT NULL,
  result_summary  VARCHAR(1000),
  duration_us     BIGINT          NOT NULL,
  KEY ${index} (tenant, tool, idem_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
