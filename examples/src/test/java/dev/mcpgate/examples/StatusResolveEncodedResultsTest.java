package dev.mcpgate.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.codec.AesGcmResultCodec;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.KeyGenerator;
import org.junit.jupiter.api.Test;

/**
 * {@code status resolve --happened} settles through a gate of its own, which stores the verdict as
 * plain MCP JSON. On a server whose gate encrypts its results ({@code AesGcmResultCodec}) that is a
 * result the server cannot read: every retry would fail on it for the whole retention, while the
 * command said retries replay it (found in review). The command now refuses there, writing nothing,
 * when the table's stored results show a codec.
 */
class StatusResolveEncodedResultsTest {

  @Test
  void aHappenedVerdictIsRefusedOnATableOfEncryptedResultsAndNothingIsWritten() throws Exception {
    String url = "jdbc:h2:mem:status-codec-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setMaximumPoolSize(4);
    KeyGenerator aes = KeyGenerator.getInstance("AES");
    aes.init(256);
    AesGcmResultCodec codec =
        AesGcmResultCodec.builder().currentKey("k-2026", aes.generateKey()).build();
    ToolCall earlier = ToolCall.of("acme", "refund_order", "k-0", Map.of("order", "ord_1"));
    ToolCall call = ToolCall.of("acme", "refund_order", "k-1", Map.of("order", "ord_9f2"));
    AtomicInteger runs = new AtomicInteger();

    try (HikariDataSource ds = new HikariDataSource(config);
        JdbcIdempotencyStore store =
            JdbcIdempotencyStore.builder(ds).createSchemaIfMissing(true).build();
        IdempotencyGate server = IdempotencyGate.builder(store).codec(codec).build()) {
      server.execute(earlier, ResultMapper.utf8(), ctx -> "{\"content\":[]}"); // stored encrypted
      ClaimOutcome.Acquired claim = (ClaimOutcome.Acquired) server.claim(call);
      runs.incrementAndGet(); // the refund ran; its outcome was lost
      assertThat(server.markUnknown(claim)).isTrue();

      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int code =
          Status.resolve(
              url,
              "acme",
              "refund_order",
              "k-1",
              "{\"content\":[{\"type\":\"text\",\"text\":\"Refunded 500 cents\"}]}",
              "mcpgate_claims",
              new PrintStream(out, true, StandardCharsets.UTF_8),
              new PrintStream(err, true, StandardCharsets.UTF_8));

      assertThat(code).isEqualTo(2);
      assertThat(err.toString(StandardCharsets.UTF_8))
          .contains("not plain MCP JSON", "Nothing was written", "gate.resolveUnknown");
      assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("settled");
      assertThat(server.find(call.id()).orElseThrow().state()).isEqualTo(ClaimState.UNKNOWN);
      GateResult<String> retry =
          server.execute(call, ResultMapper.utf8(), ctx -> "ran " + runs.incrementAndGet());
      assertThat(runs).as("the refund ran once").hasValue(1);
      assertThat(retry)
          .as("still fenced as unknown, not an unreadable result")
          .isInstanceOf(GateResult.Refused.class);
    }
  }
}
