package dev.mcpgate.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.audit.AuditDecision;
import dev.mcpgate.core.audit.AuditRecord;
import dev.mcpgate.jdbc.JdbcAuditSink;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code status --search} prints "N record(s) of tenant T whose arguments contain ...", but reads
 * at most 50: with 51 matching records it says "50 record(s)", a count that is not true, and does
 * not say that older ones were left out. Found in the operations newcomer trial (PostgreSQL: 51
 * records, "50 record(s)"). It now says that more match than it shows.
 */
class StatusSearchCapTest {
  @TempDir Path tmp;

  @Test
  void aSearchWithMoreMatchesThanItShowsDoesNotUnderstateTheCount() throws Exception {
    String url = "jdbc:h2:file:" + tmp.resolve("db");
    try (HikariDataSource ds = new HikariDataSource()) {
      ds.setJdbcUrl(url);
      JdbcAuditSink sink = JdbcAuditSink.builder(ds).createSchemaIfMissing(true).build();
      for (int i = 0; i < 51; i++) {
        sink.record(
            new AuditRecord(
                Instant.now(),
                "context:acme",
                "refund_order",
                "k-" + i,
                "v1:00",
                "[amount_cents, idempotency_key, order_id]",
                AuditDecision.EXECUTED,
                null,
                1,
                null,
                1000));
      }
      assertThat(sink.flush(Duration.ofSeconds(10))).isTrue();
      sink.close();
    }

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int code =
        Main.run(
            new String[] {
              "status", "--jdbc-url", url, "--tenant", "context:acme", "--search", "order_id"
            },
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    String found = out.toString(StandardCharsets.UTF_8);

    assertThat(code).isZero();
    assertThat(found).as(found.lines().findFirst().orElse("")).doesNotStartWith("50 record(s)");
    assertThat(found)
        .startsWith("the newest 50 of more than 50 records of tenant context:acme")
        .contains("narrow the search to see older ones");
    assertThat(found.lines().filter(l -> l.contains("refund_order"))).hasSize(50);
  }
}
