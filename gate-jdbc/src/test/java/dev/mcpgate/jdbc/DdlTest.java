package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The DDL texts are run statement by statement, split at semicolons: a semicolon in a comment would
 * cut a statement in two (the audit DDL once had one). Every piece must be a whole CREATE.
 */
class DdlTest {

  private static List<String> statements(String ddl) {
    return Arrays.stream(ddl.split(";"))
        .map(
            s ->
                s.lines()
                    .filter(l -> !l.strip().startsWith("--"))
                    .reduce("", (a, b) -> a + "\n" + b)
                    .strip())
        .filter(s -> !s.isEmpty())
        .toList();
  }

  @Test
  void everyStatementOfEveryDialectIsAWholeCreate() {
    for (JdbcDialect dialect : JdbcDialect.values()) {
      for (String ddl : List.of(dialect.ddl("mcpgate_claims"), dialect.auditDdl("mcpgate_audit"))) {
        assertThat(statements(ddl))
            .as("%s:%n%s", dialect, ddl)
            .isNotEmpty()
            .allSatisfy(s -> assertThat(s).startsWith("CREATE ").doesNotContain("--"));
      }
    }
  }

  @Test
  void theAuditTableHasItsKeyIndexInEveryDialect() {
    for (JdbcDialect dialect : JdbcDialect.values()) {
      assertThat(dialect.auditDdl("app.mcpgate_audit"))
          .as(dialect.name())
          .contains("CREATE TABLE IF NOT EXISTS app.mcpgate_audit")
          .contains("mcpgate_audit_key_idx")
          .contains("(tenant")
          .containsPattern("tool(\\(191\\))?, idem_key");
    }
  }
}
