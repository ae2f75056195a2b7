package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * Which failures of a completion sent with its {@code COMMIT} prove that nothing was committed: the
 * caller is told "not committed, safe to retry" only then, and "unknown" otherwise.
 */
class CommitFailureClassesTest {
  private final PostgresSql postgres = new PostgresSql("mcpgate_claims");
  private final MySqlFamilySql mariadb = new MySqlFamilySql("mcpgate_claims", true, true);

  private static SQLException state(String sqlState) {
    return new SQLException("failed", sqlState);
  }

  @Test
  void onPostgresqlAnErrorOfTheStatementsOwnWorkProvesNothingWasCommitted() {
    for (String s : new String[] {"22P02", "23505", "25P02", "40001", "40P01", "42P01", "55P03"}) {
      assertThat(postgres.provesNotCommitted(state(s))).as(s).isTrue();
    }
    assertThat(postgres.provesNotCommitted(state("57014"))).as("a cancelled statement").isTrue();
  }

  @Test
  void onPostgresqlALostConnectionOrTheServersOwnTroubleLeavesTheCommitUnknown() {
    // 57P01: a shutdown while COMMIT waits for a synchronous standby: committed locally already
    for (String s : new String[] {"08006", "08003", "57P01", "57P02", "53100", "58030", "XX000"}) {
      assertThat(postgres.provesNotCommitted(state(s))).as(s).isFalse();
    }
    assertThat(postgres.provesNotCommitted(state(null))).as("no state").isFalse();
  }

  @Test
  void onMariadbOnlyWhatTheCompletionProcedureRaisedBeforeItsCommitProvesIt() {
    assertThat(mariadb.provesNotCommitted(new SQLException("mcpgate: not committed: x", "40001")))
        .isTrue();
    assertThat(mariadb.provesNotCommitted(new SQLException("mcpgate: no claim row", "45000")))
        .isTrue();
    assertThat(mariadb.provesNotCommitted(new SQLException("Deadlock found", "40001")))
        .as("an error the procedure did not mark may have come from its COMMIT")
        .isFalse();
    assertThat(mariadb.provesNotCommitted(new SQLException("Connection reset", "08000"))).isFalse();
  }
}
