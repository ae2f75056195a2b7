package dev.mcpgate.jdbc.review;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.audit.AuditDecision;
import dev.mcpgate.core.audit.AuditRecord;
import dev.mcpgate.jdbc.JdbcAuditLog;
import dev.mcpgate.jdbc.JdbcAuditSink;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Review: {@link AuditRecord} promises that a valid tenant, tool or key (up to 255 code points,
 * which may be 510 UTF-16 units) "is never cut", and every audit table holds one whole (PostgreSQL
 * VARCHAR(255) in code points, MariaDB VARBINARY(1020), H2 VARCHAR(510) in UTF-16 units). The JDBC
 * sink's writer cuts each of them to 255 UTF-16 units before binding it, silently: a valid key of
 * 200 characters outside the BMP (an emoji key, 400 UTF-16 units) is written as its first 127
 * characters. The audit trail then names a key no call had, and {@link JdbcAuditLog#history} for
 * the real key finds nothing: "did we refund twice?" is answered "never called".
 */
class AuditSinkKeepsValidNamesWholeReviewTest {

  static Stream<Arguments> databases() {
    return Stream.of(
        Arguments.of(
            "PostgreSQL",
            (Supplier<HikariDataSource>) () -> ReviewDatabases.postgres("audit-names-pg", 2)),
        Arguments.of(
            "MariaDB",
            (Supplier<HikariDataSource>) () -> ReviewDatabases.mariadb("audit-names-maria", 2)),
        Arguments.of(
            "H2", (Supplier<HikariDataSource>) () -> ReviewDatabases.h2("audit_names_h2", 2)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("databases")
  void aValidKeyOutsideTheBmpIsWrittenWhole(String db, Supplier<HikariDataSource> pools)
      throws Exception {
    String emoji = "\ud83d\ude00";
    String key = emoji.repeat(200); // 200 code points: a valid key
    String tenant = "t-" + emoji.repeat(ClaimId.MAX_LENGTH - 2); // 255 code points: valid
    ClaimId.validate(key, "key");
    ClaimId.validate(tenant, "tenant");
    String table = "review_audit_names";
    try (HikariDataSource ds = pools.get()) {
      try (Connection c = ds.getConnection();
          Statement st = c.createStatement()) {
        st.execute("DROP TABLE IF EXISTS " + table);
      }
      AuditRecord sent =
          new AuditRecord(
              Instant.now().truncatedTo(ChronoUnit.MILLIS),
              tenant,
              "refund_order",
              key,
              "v1:abc",
              "[order_id]",
              AuditDecision.EXECUTED,
              null,
              1,
              "refund r_1",
              1234);
      assertThat(sent.key()).as("the record keeps a valid key whole").isEqualTo(key);
      try (JdbcAuditSink sink =
          JdbcAuditSink.builder(ds).tableName(table).createSchemaIfMissing(true).build()) {
        sink.record(sent);
        assertThat(sink.flush(Duration.ofSeconds(30))).isTrue();
        assertThat(sink.failed()).isZero();
      }
      List<AuditRecord> history = JdbcAuditLog.of(ds, table).history(tenant, "refund_order", key);
      assertThat(history).as("the call is in the audit trail under its own key").hasSize(1);
      assertThat(history.get(0).key()).isEqualTo(key);
      assertThat(history.get(0).tenant()).isEqualTo(tenant);
    }
  }
}
