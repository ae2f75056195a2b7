package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.transaction.annotation.Transactional;

/**
 * Review K. A gated {@code @Transactional} tool writes its effect in the application's PostgreSQL.
 * Its COMMIT reaches the database and commits; the connection is lost before the answer comes back
 * (a TCP proxy cuts it). Spring throws TransactionSystemException ("Could not commit JDBC
 * transaction"), Spring AI answers it with an error result, the gate takes that for a plain failure
 * and releases the key, and the retry with the same key writes the effect again. Needs PostgreSQL
 * at 127.0.0.1:5432 (database test, user postgres).
 */
class CommitAnswerLostOfTransactionalToolReviewTest {
  static final String TABLE = ReviewApps.chargeTable("mg_review_k_spring");
  static final AtomicBoolean ARMED = new AtomicBoolean();
  static final AtomicBoolean USED = new AtomicBoolean();
  static final AtomicInteger CUTS = new AtomicInteger();

  public static class Tools {
    private final JdbcTemplate jdbc;

    public Tools(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @McpTool(name = "charge", description = "Charge an order")
    @Idempotent
    @Transactional
    public String charge(@McpToolParam(description = "the order") String orderId) {
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId);
      if (USED.compareAndSet(false, true)) {
        ARMED.set(true); // the first run's COMMIT commits, and its answer is lost
      }
      return "charged " + orderId;
    }
  }

  @EnableAutoConfiguration
  public static class Server {
    @Bean
    SecurityFilterChain open(HttpSecurity http) throws Exception {
      return http.csrf(c -> c.disable())
          .authorizeHttpRequests(a -> a.anyRequest().permitAll())
          .build();
    }

    @Bean
    Tools tools(JdbcTemplate jdbc) {
      return new Tools(jdbc);
    }
  }

  @Test
  void aCommitWhoseAnswerWasLostIsNotRunAgainByItsRetry() throws Exception {
    int port = proxy(5432);
    String order = UUID.randomUUID().toString();
    try (ConfigurableApplicationContext app = ReviewApps.postgresServer(Server.class, port)) {
      McpSyncClient client = ReviewApps.client(app);
      try {
        CallToolRequest call =
            CallToolRequest.builder()
                .name("charge")
                .arguments(Map.of("orderId", order))
                .meta(Map.of("dev.mcpgate/idempotency-key", "k-commit-" + order))
                .build();
        CallToolResult first = client.callTool(call);
        CallToolResult retry = client.callTool(call);
        assertThat(CUTS.get()).as("the proxy cut a commit's answer").isEqualTo(1);
        assertThat(ReviewApps.charges(TABLE, order))
            .as("charge rows: first=%s retry=%s", first, retry)
            .isEqualTo(1);
      } finally {
        client.closeGracefully();
      }
    }
  }

  /** A TCP proxy that, once armed, passes on the next COMMIT, drops its answer, and cuts. */
  private static int proxy(int target) throws IOException {
    ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread accept =
        new Thread(
            () -> {
              while (true) {
                try {
                  Socket client = server.accept();
                  Socket upstream = new Socket("127.0.0.1", target);
                  AtomicBoolean cut = new AtomicBoolean();
                  pump(client, upstream, cut, true);
                  pump(upstream, client, cut, false);
                } catch (IOException e) {
                  return;
                }
              }
            });
    accept.setDaemon(true);
    accept.start();
    return server.getLocalPort();
  }

  private static void pump(Socket from, Socket to, AtomicBoolean cut, boolean fromClient) {
    Thread t =
        new Thread(
            () -> {
              byte[] buf = new byte[65536];
              try (InputStream in = from.getInputStream()) {
                OutputStream out = to.getOutputStream();
                int n;
                while ((n = in.read(buf)) > 0) {
                  if (cut.get()) {
                    continue;
                  }
                  boolean commit =
                      fromClient
                          && ARMED.get()
                          && new String(buf, 0, n, StandardCharsets.ISO_8859_1).contains("COMMIT")
                          && ARMED.compareAndSet(true, false);
                  if (commit) {
                    cut.set(true);
                  }
                  out.write(buf, 0, n);
                  out.flush();
                  if (commit) {
                    CUTS.incrementAndGet();
                    Thread.sleep(500); // PostgreSQL commits meanwhile
                    return;
                  }
                }
              } catch (IOException | InterruptedException e) {
                // closed
              } finally {
                try {
                  from.close();
                  to.close();
                } catch (IOException e) {
                  // closed
                }
              }
            });
    t.setDaemon(true);
    t.start();
  }
}
