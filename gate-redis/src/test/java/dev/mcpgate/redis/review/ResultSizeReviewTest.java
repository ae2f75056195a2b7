package dev.mcpgate.redis.review;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.ResultTooLargeException;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.redis.RedisIdempotencyStore;
import io.lettuce.core.RedisURI;
import java.io.File;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * A result larger than the server will take in one argument ({@code proto-max-bulk-len}: 512 MB by
 * default, as low as 1 MB on a server so configured), with the gate's {@code maxResultBytes} set
 * above it. The SPI says a store that cannot hold a result throws {@link ResultTooLargeException}
 * (the gate then fences the key with a not-stored marker and gives the caller its result); Redis
 * instead answers a protocol error and drops the connection, which the store reports as Redis being
 * unavailable (the gate then tells the caller the outcome is unknown), and which fails every other
 * command in flight on the store's one shared connection.
 */
class ResultSizeReviewTest {

  @Test
  void aResultLargerThanTheServerTakesIsTooLargeNotAStoreOutage() throws Exception {
    String binary = null;
    for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(d, "redis-server"))) {
        binary = Path.of(d, "redis-server").toString();
      }
    }
    Assumptions.assumeTrue(binary != null, "no redis-server on the PATH");
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Process server =
        new ProcessBuilder(
                List.of(
                    binary,
                    "--port",
                    "" + port,
                    "--bind",
                    "127.0.0.1",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--proto-max-bulk-len",
                    "1mb"))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    try {
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (true) {
        try (Socket s = new Socket("127.0.0.1", port)) {
          break;
        } catch (java.io.IOException notYet) {
          if (System.nanoTime() > deadline) {
            throw notYet;
          }
          Thread.sleep(50);
        }
      }
      try (RedisIdempotencyStore store =
          RedisIdempotencyStore.builder(RedisURI.create("redis://127.0.0.1:" + port)).build()) {
        ClaimId id = new ClaimId("review-size", "export_report", "r-1");
        LeaseToken token = LeaseToken.random();
        Duration long_ = Duration.ofMinutes(10);
        assertThat(store.claim(new ClaimRequest(id, "v1:a", token, long_, long_)))
            .isInstanceOf(ClaimAttempt.Acquired.class);
        StoredResult big = new StoredResult(StoredResult.Kind.VALUE, new byte[2 * 1024 * 1024]);

        assertThatThrownBy(() -> store.complete(id, token, big, long_))
            .isInstanceOf(ResultTooLargeException.class);
        assertThat(store.find(id).orElseThrow().state()).isEqualTo(ClaimState.IN_PROGRESS);
      }
    } finally {
      server.destroyForcibly().waitFor();
    }
  }
}
