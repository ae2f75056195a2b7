package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.audit.AuditDecision;
import dev.mcpgate.core.audit.AuditRecord;
import dev.mcpgate.core.audit.Redaction;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The audit queue's byte budget (issue 34, finding 3): what waits for the writer weighs no more
 * than {@code queueBytes}, whatever the calls, and what is dropped is counted by tenant.
 */
class JdbcAuditBudgetTest {
  /** A writer that never runs: everything recorded stays queued. */
  private static final Executor NEVER = task -> {};

  private static final DataSource UNUSED =
      (DataSource)
          java.lang.reflect.Proxy.newProxyInstance(
              JdbcAuditBudgetTest.class.getClassLoader(),
              new Class<?>[] {DataSource.class},
              (proxy, method, args) -> {
                throw new AssertionError("the writer never runs");
              });

  /** What the adapter records for a call with 200,000 argument names and no tenant. */
  private static AuditRecord wideAnonymousCall() {
    Map<String, Object> args = new HashMap<>();
    for (int i = 0; i < 200_000; i++) {
      args.put("argument_name_" + i, i);
    }
    return new AuditRecord(
        Instant.now(),
        null,
        "refund_order",
        null,
        null,
        Redaction.argumentNames().redact("refund_order", args),
        AuditDecision.TENANT_REFUSED,
        "no tenant",
        0,
        null,
        5);
  }

  private static AuditRecord small(String tenant) {
    return new AuditRecord(
        Instant.now(),
        tenant,
        "refund_order",
        "k-1",
        "v1:abc",
        "[amount_cents, order_id]",
        AuditDecision.EXECUTED,
        null,
        1,
        null,
        5);
  }

  @Test
  void theQueueHoldsNoMoreThanItsBytesWhateverTheCalls() {
    long budget = 1024 * 1024;
    // never closed: without a writer, close() would wait for it in vain
    JdbcAuditSink sink = JdbcAuditSink.builder(UNUSED).executor(NEVER).queueBytes(budget).build();
    {
      AuditRecord wide = wideAnonymousCall();
      assertThat(JdbcAuditSink.weight(wide))
          .isLessThanOrEqualTo(JdbcAuditSink.RECORD_OVERHEAD_BYTES + 2L * AuditRecord.MAX_CHARS);
      for (int i = 0; i < 1000; i++) {
        sink.record(wide);
      }
      long fit = budget / JdbcAuditSink.weight(wide);
      assertThat(sink.queuedBytes()).isLessThanOrEqualTo(budget);
      assertThat(sink.dropped()).isEqualTo(1000 - fit);
      // a full queue is counted by tenant: "" for the calls without one
      sink.record(small("acme"));
      assertThat(sink.droppedByTenant()).containsEntry("", 1000 - fit);
      assertThat(sink.queuedBytes()).isLessThanOrEqualTo(budget);
    }
  }

  @Test
  void theDefaultBudgetHoldsTheWidestRecordsWithinSixteenMebibytes() {
    JdbcAuditSink sink = JdbcAuditSink.builder(UNUSED).executor(NEVER).build();
    {
      AuditRecord wide = wideAnonymousCall();
      for (int i = 0; i < 10_000; i++) {
        sink.record(wide);
      }
      assertThat(sink.queuedBytes()).isLessThanOrEqualTo(16L * 1024 * 1024);
      assertThat(sink.dropped()).isPositive();
    }
  }

  @Test
  void dropsAreCountedForAtMostSoManyTenants() {
    JdbcAuditSink sink = JdbcAuditSink.builder(UNUSED).executor(NEVER).queueCapacity(1).build();
    {
      sink.record(small("first"));
      for (int i = 0; i < JdbcAuditSink.MAX_TENANTS_COUNTED + 500; i++) {
        sink.record(small("tenant-" + i));
      }
      assertThat(sink.dropped()).isEqualTo(JdbcAuditSink.MAX_TENANTS_COUNTED + 500);
      assertThat(sink.droppedByTenant()).hasSize(JdbcAuditSink.MAX_TENANTS_COUNTED);
    }
  }

  @Test
  void writtenRecordsReleaseTheirBytesAndKeepTheCut() throws Exception {
    DataSource h2 = TestDatabases.pool(TestDatabases.h2(), "audit-budget-h2", 2);
    String table = "mcpgate_audit_budget";
    try (Connection c = h2.getConnection();
        Statement st = c.createStatement()) {
      st.execute("DROP TABLE IF EXISTS " + table);
    }
    try (JdbcAuditSink sink =
        JdbcAuditSink.builder(h2).tableName(table).createSchemaIfMissing(true).build()) {
      sink.record(wideAnonymousCall());
      assertThat(sink.flush(Duration.ofSeconds(30))).isTrue();
      assertThat(sink.written()).isEqualTo(1);
      assertThat(sink.queuedBytes()).isZero();
    }
    try (Connection c = h2.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT arguments FROM " + table)) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).endsWith(" characters]").contains("\u2026[cut: kept ");
    }
  }

  @Test
  void theByteBudgetHasAFloor() {
    assertThatThrownBy(() -> JdbcAuditSink.builder(UNUSED).queueBytes(1000))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("queueBytes");
  }
}
