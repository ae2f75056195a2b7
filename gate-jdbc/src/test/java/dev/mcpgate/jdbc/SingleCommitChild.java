package dev.mcpgate.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import java.sql.PreparedStatement;
import java.util.Map;

/**
 * A process to be killed: claims a key in single-commit mode, writes a business row in the same
 * transaction, says so on standard output, and waits to be killed before it can commit. Arguments:
 * JDBC URL, user, password, tenant, key.
 */
public final class SingleCommitChild {
  private SingleCommitChild() {}

  public static void main(String[] args) throws Exception {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(args[0]);
    if (!args[1].isEmpty()) {
      config.setUsername(args[1]);
      config.setPassword(args[2]);
    }
    config.setMaximumPoolSize(2);
    try (HikariDataSource pool = new HikariDataSource(config)) {
      JdbcIdempotencyStore store =
          JdbcIdempotencyStore.builder(pool).tableName(JdbcStoreContract.TABLE).build();
      IdempotencyGate gate = IdempotencyGate.builder(store).build();
      gate.executeSingleCommit(
          ToolCall.of(args[3], "stop_session", args[4], Map.of()),
          ResultMapper.utf8(),
          store.singleCommit(),
          (c, ctx) -> {
            try (PreparedStatement ps =
                c.prepareStatement(
                    "INSERT INTO " + JdbcStoreContract.EFFECTS + " (tenant, note) VALUES (?, ?)")) {
              ps.setString(1, args[3]);
              ps.setString(2, "child");
              ps.executeUpdate();
            }
            System.out.println("ACTING");
            System.out.flush();
            Thread.sleep(120_000);
            return "never";
          });
    }
  }
}
