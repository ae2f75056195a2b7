-- MCP Gate's claim on MariaDB and MySQL, in one round trip: a consistent read of the key's row
-- (no lock; inside a transaction that lost a race, a locking read of the latest committed row),
-- and, when there is none, the INSERT of the claim. Returns one row: the store's clock (now_ms),
-- whether this call inserted the key, and the row found (all NULL when none was found). A
-- duplicate key (a racing claim won) returns inserted = 0 and no row: the caller reads again.
-- p_lock_wait >= 0 sets innodb_lock_wait_timeout for the claim's statements and puts it back
-- (single-commit mode with a zero wait); -1 leaves it as it is. Run as one statement (from the
-- mariadb client, between DELIMITER // and DELIMITER ;).
CREATE PROCEDURE ${procedure}(
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
      FROM ${table} WHERE tenant = p_tenant AND tool = p_tool AND idem_key = p_key
      LOCK IN SHARE MODE;
  ELSE
    SELECT args_hash, state, lease_token, attempt, created_at_ms, lease_expires_at_ms,
           expires_at_ms, completed_at_ms, result_kind, result
      INTO v_hash, v_state, v_token, v_attempt, v_created, v_lease_expires,
           v_expires, v_completed, v_kind, v_result
      FROM ${table} WHERE tenant = p_tenant AND tool = p_tool AND idem_key = p_key;
  END IF;
  IF v_state IS NULL THEN
    INSERT INTO ${table} (tenant, tool, idem_key, args_hash, state, lease_token, attempt,
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
