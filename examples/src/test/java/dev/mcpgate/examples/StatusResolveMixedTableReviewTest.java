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
 * Reviewer G. {@code status resolve --happened} decides "encoded or not" from one stored result,
 * picked by {@code LIMIT 1} with no order. A server that adopted {@code AesGcmResultCodec} keeps
 * its earlier, plain results for their retention: the table holds both. When the row the query
 * happens to pick is an earlier plain one, the command stores the verdict unencoded and says
 * "retries now get the result you gave", while the server (with its codec) cannot read it: the
 * retry is refused as an unreadable result for the whole retention, the very case the check was
 * added for (StatusResolveEncodedResultsTest).
 */
class StatusResolveMixedTableReviewTest {

  @Test
  void whatTheCommandSaysOfASettlementHoldsOnATableThatAdoptedACodec() throws Exception {
    String url = "jdbc:h2:mem:status-mixed-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setMaximumPoolSize(4);
    KeyGenerator aes = KeyGenerator.getInstance("AES");
    aes.init(256);
    AesGcmResultCodec codec =
        AesGcmResultCodec.builder().currentKey("k-2026", aes.generateKey()).build();
    ToolCall call = ToolCall.of("acme", "refund_order", "k-9", Map.of("order", "ord_9f2"));
    AtomicInteger runs = new AtomicInteger();

    try (HikariDataSource ds = new HikariDataSource(config);
        JdbcIdempotencyStore store =
            JdbcIdempotencyStore.builder(ds).createSchemaIfMissing(true).build()) {
      try (IdempotencyGate before = IdempotencyGate.builder(store).build()) {
        for (int i = 0; i < 3; i++) { // stored plain, before the codec was adopted
          before.execute(
              ToolCall.of("acme", "refund_order", "k-" + i, Map.of("order", "ord_" + i)),
              ResultMapper.utf8(),
              ctx -> "{\"content\":[]}");
        }
      }
      try (IdempotencyGate server = IdempotencyGate.builder(store).codec(codec).build()) {
        server.execute( // stored encrypted, since the adoption
            ToolCall.of("acme", "refund_order", "k-3", Map.of("order", "ord_3")),
            ResultMapper.utf8(),
            ctx -> "{\"content\":[]}");
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
                "k-9",
                "{\"content\":[{\"type\":\"text\",\"text\":\"Refunded 500 cents\"}]}",
                "mcpgate_claims",
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        GateResult<String> retry =
            server.execute(call, ResultMapper.utf8(), ctx -> "ran " + runs.incrementAndGet());
        assertThat(runs).as("the refund ran once").hasValue(1);
        assertThat(code == 2 || retry instanceof GateResult.Replayed)
            .as(
                "either refused (exit 2), or what it said (\"%s\") holds: the server's retry"
                    + " replays the verdict; exit %d, the retry got %s",
                out.toString(StandardCharsets.UTF_8).strip(), code, retry)
            .isTrue();
      }
    }
  }
}
