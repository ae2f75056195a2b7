-- MCP Gate's completion in single-commit mode on MariaDB and MySQL: the token-checked UPDATE and
-- the COMMIT in one round trip. A completion that finds no row of this attempt signals SQLSTATE
-- 45000 ("mcpgate: no claim row") and commits nothing; any error before the COMMIT is raised
-- again with "mcpgate: not committed" in front of its message, so the caller knows that nothing
-- was committed; an error of the COMMIT itself comes as it is.
CREATE PROCEDURE ${procedure}(
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
    UPDATE ${table}
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
