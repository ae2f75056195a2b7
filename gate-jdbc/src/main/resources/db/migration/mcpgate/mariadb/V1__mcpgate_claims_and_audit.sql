-- MCP Gate, migration 1: the claims table mcpgate_claims and the audit table mcpgate_audit,
-- as JdbcIdempotencyStore and JdbcAuditSink create them (createSchemaIfMissing). Generated from
-- the store's DDL by MigrationScriptsTest; run with a Flyway history table of its own.

-- MCP Gate claims table for MariaDB and MySQL. Times are epoch milliseconds on the database clock.
-- tenant, tool and key are VARBINARY so that they compare byte for byte: no case folding and no
-- trailing-space padding, whatever the server's default collation.
CREATE TABLE IF NOT EXISTS mcpgate_claims (
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
  KEY mcpgate_claims_created_idx (created_at_ms)
) ENGINE=InnoDB;

-- MCP Gate audit trail for MariaDB and MySQL: one append-only row per decision. The claims table
-- is the lock, this is the narrative. Times are epoch milliseconds on the application's clock.
-- tenant, tool and key are VARBINARY, as in the claims table: they compare byte for byte.
CREATE TABLE IF NOT EXISTS mcpgate_audit (
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
  KEY mcpgate_audit_key_idx (tenant, tool, idem_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

DROP PROCEDURE IF EXISTS mcpgate_claims_claim_v1;
DROP PROCEDURE IF EXISTS mcpgate_claims_complete_v1;

DELIMITER //
-- MCP Gate's claim on MariaDB and MySQL, in one round trip: a consistent read of the key's row
-- (no lock; inside a transaction that lost a race, a locking read of the latest committed row),
-- and, when there is none, the INSERT of the claim. Returns one row: the store's clock (now_ms),
-- whether this call inserted the key, and the row found (all NULL when none was found). A
-- duplicate key (a racing claim won) returns inserted = 0 and no row: the caller reads again.
-- p_lock_wait >= 0 sets innodb_lock_wait_timeout for the claim's statements and puts it back
-- (single-commit mode with a zero wait); -1 leaves it as it is. Run as one statement (from the
-- mariadb client, between DELIMITER // and DELIMITER ;).
CREATE PROCEDURE mcpgate_claims_claim_v1(
  IN p_tenant VARBINARY(1020), IN p_tool VARBINARY(1020), IN p_key VARBINARY(1020),
  IN p_hash VARCHAR(80) CHARACTER SET ascii, IN p_token VARCHAR(64) CHARACTER SET ascii,
  IN p_lease BIGINT, IN p_retention BIGINT, IN p_latest BOOLEAN, IN p_lock_wait INT)
  MODIFIES SQL DATA
BEGIN
  DECLARE v_previous_wait BIGINT DEFAULT @@SESSION.innodb_lock_wait_timeout;
  DECLARE v_now BIGINT;
  DECLARE v_dup INT DEFAULT 0;
  DECLARE v_hash VARCHAR(80) CHARACTER SET ascii DEFAULT NULL;
  DECLARE v_state VARCHAR(16) CHARACTER SET ascii DEFAULT NULL;
  DECLARE v_token VARCHAR(64) CHARACTER SET ascii DEFAULT NULL;
  DECLARE v_attempt INT DEFAULT NULL;
  DECLARE v_created, v_lease_expires, v_expires, v_completed BIGINT DEFAULT NULL;
  DECLARE v_kind VARCHAR(16) CHARACTER SET ascii DEFAULT NULL;
  DECLARE v_result LONGBLOB DEFAULT NULL;
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_state = NULL;
  DECLARE CONTINUE HANDLER FOR 1062 SET v_dup = 1;
  DECLARE EXIT HANDLER FOR SQLEXCEPTION
  BEGIN
    IF p_lock_wait >= 0 THEN
      SET SESSION innodb_lock_wait_timeout = v_previous_wait;
    END IF;
    RESIGNAL;
  END;
  IF p_lock_wait >= 0 THEN
    SET SESSION innodb_lock_wait_timeout = p_lock_wait;
  END IF;
  SET v_now = (TIMESTAMPDIFF(MICROSECOND, TIMESTAMP'1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000);
  IF p_latest THEN
    SELECT args_hash, state, lease_token, attempt, created_at_ms, lease_expires_at_ms,
           expires_at_ms, completed_at_ms, result_kind, result
      INTO v_hash, v_state, v_token, v_attempt, v_created, v_lease_expires,
           v_expires, v_completed, v_kind, v_result
      FROM mcpgate_claims WHERE tenant = p_tenant AND tool = p_tool AND idem_key = p_key
      LOCK IN SHARE MODE;
  ELSE
    SELECT args_hash, state, lease_token, attempt, created_at_ms, lease_expires_at_ms,
           expires_at_ms, completed_at_ms, result_kind, result
      INTO v_hash, v_state, v_token, v_attempt, v_created, v_lease_expires,
           v_expires, v_completed, v_kind, v_result
      FROM mcpgate_claims WHERE tenant = p_tenant AND tool = p_tool AND idem_key = p_key;
  END IF;
  IF v_state IS NULL THEN
    INSERT INTO mcpgate_claims (tenant, tool, idem_key, args_hash, state, lease_token, attempt,
                          created_at_ms, lease_expires_at_ms, expires_at_ms, completed_at_ms,
                          result_kind, result)
      VALUES (p_tenant, p_tool, p_key, p_hash, 'IN_PROGRESS', p_token, 1,
              v_now, v_now + p_lease, v_now + p_retention, NULL, NULL, NULL);
  END IF;
  IF p_lock_wait >= 0 THEN
    SET SESSION innodb_lock_wait_timeout = v_previous_wait;
  END IF;
  SELECT v_now AS now_ms, v_state IS NULL AND v_dup = 0 AS inserted,
         IF(v_state IS NULL, NULL, p_tenant) AS tenant, IF(v_state IS NULL, NULL, p_tool) AS tool,
         IF(v_state IS NULL, NULL, p_key) AS idem_key, v_hash AS args_hash, v_state AS state,
         v_token AS lease_token, v_attempt AS attempt, v_created AS created_at_ms,
         v_lease_expires AS lease_expires_at_ms, v_expires AS expires_at_ms,
         v_completed AS completed_at_ms, v_kind AS result_kind, v_result AS result;
END
//
-- MCP Gate's completion in single-commit mode on MariaDB and MySQL: the token-checked UPDATE and
-- the COMMIT in one round trip. A completion that finds no row of this attempt signals SQLSTATE
-- 45000 ("mcpgate: no claim row") and commits nothing; any error before the COMMIT is raised
-- again with "mcpgate: not committed" in front of its message, so the caller knows that nothing
-- was committed; an error of the COMMIT itself comes as it is.
CREATE PROCEDURE mcpgate_claims_complete_v1(
  IN p_tenant VARBINARY(1020), IN p_tool VARBINARY(1020), IN p_key VARBINARY(1020),
  IN p_token VARCHAR(64) CHARACTER SET ascii, IN p_retention BIGINT,
  IN p_kind VARCHAR(16) CHARACTER SET ascii, IN p_result LONGBLOB)
  MODIFIES SQL DATA
BEGIN
  DECLARE v_rows INT DEFAULT 0;
  BEGIN
    DECLARE v_text TEXT;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION
    BEGIN
      GET DIAGNOSTICS CONDITION 1 v_text = MESSAGE_TEXT;
      SET v_text = CONCAT('mcpgate: not committed: ', LEFT(v_text, 400));
      RESIGNAL SET MESSAGE_TEXT = v_text;
    END;
    UPDATE mcpgate_claims
       SET state = 'COMPLETED',
           completed_at_ms = (TIMESTAMPDIFF(MICROSECOND, TIMESTAMP'1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000),
           expires_at_ms = (TIMESTAMPDIFF(MICROSECOND, TIMESTAMP'1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000) + p_retention,
           result_kind = p_kind, result = p_result
     WHERE tenant = p_tenant AND tool = p_tool AND idem_key = p_key
       AND lease_token = p_token AND state <> 'COMPLETED';
    SET v_rows = ROW_COUNT();
  END;
  IF v_rows <> 1 THEN
    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'mcpgate: no claim row';
  END IF;
  COMMIT;
END
//
DELIMITER ;
