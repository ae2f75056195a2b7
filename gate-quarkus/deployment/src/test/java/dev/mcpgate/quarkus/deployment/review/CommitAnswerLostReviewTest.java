package dev.mcpgate.quarkus.deployment.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.quarkus.deployment.TestClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.quarkus.test.QuarkusUnitTest;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Review K. A gated {@code @Transactional} tool writes its effect in the application's own
 * PostgreSQL. The gate runs outside the transaction (docs/quarkus.md: "stores a result only after
 * the method's transaction committed"). Its COMMIT reaches the database and commits; the connection
 * is then lost before the answer comes back (a TCP proxy between the application and PostgreSQL
 * cuts it). The transaction manager throws, the gate takes that for an ordinary failure and
 * releases the key, and the retry with the same key writes the effect a second time. A failed
 * commit is the textbook unknown outcome (the design: "A failed commit is resolved by reading the
 * claim row back before anything is said"). Needs PostgreSQL at 127.0.0.1:5432 (database test, user
 * postgres).
 */
class CommitAnswerLostReviewTest {
  // the test class is initialized twice (JUnit's class loader and the application's): the table,
  // the proxy and its state are made once, and shared through the system properties
  static final String TABLE = ChargeTables.create("review-k.table");

  static final CutProxy PROXY = new CutProxy(5432);

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(
              jar ->
                  jar.addClasses(
                      CommitAnswerLostTools.class,
                      CommitAnswerLostReviewTest.class,
                      ChargeTables.class,
                      CutProxy.class,
                      TestClient.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.http.test-port", "0")
          .overrideConfigKey("quarkus.datasource.db-kind", "postgresql")
          .overrideConfigKey(
              "quarkus.datasource.jdbc.url",
              "jdbc:postgresql://127.0.0.1:" + PROXY.port() + "/test")
          .overrideConfigKey("quarkus.datasource.username", "postgres")
          .overrideConfigKey("mcpgate.store", "memory")
          .overrideConfigKey("mcpgate.tenant.constant", "review-k");

  private static final TestClient CLIENT = new TestClient();

  @AfterAll
  static void close() {
    CLIENT.close();
  }

  @Test
  void aCommitWhoseAnswerWasLostIsNotRunAgainByItsRetry() throws Exception {
    String order = UUID.randomUUID().toString();
    CallToolRequest call =
        new CallToolRequest(
            "charge", Map.of("order_id", order, "idempotency_key", UUID.randomUUID().toString()));
    List<String> answers = new ArrayList<>();
    for (int attempt = 0; attempt < 2; attempt++) {
      try {
        CallToolResult r = CLIENT.get().callTool(call);
        answers.add(
            "result isError=" + r.isError() + " " + r.structuredContent() + " " + r.content());
      } catch (RuntimeException e) {
        answers.add("error " + e.getMessage());
      }
    }
    assertThat(PROXY.cuts()).as("the proxy cut a commit's answer").isEqualTo(1);
    assertThat(rows(order)).as("charge rows in the database; answers %s", answers).isEqualTo(1);
  }

  private static int rows(String order) throws Exception {
    return ChargeTables.rows(TABLE, order);
  }

  /**
   * A TCP proxy to PostgreSQL; once armed, the next chunk from a client that carries COMMIT is
   * passed on, the server's answer is dropped, and the connection is closed.
   */
  static final class CutProxy {
    // plain strings in the system properties, shared by the two class loaders (Narayana reads them)
    private static final String ARMED = "review-k.armed";
    private static final String USED = "review-k.used";
    private static final String CUTS = "review-k.cuts";
    private static final String PORT = "review-k.port";
    private ServerSocket server;
    private final int port;

    CutProxy(int target) {
      String known = System.getProperty(PORT);
      if (known != null) {
        port = Integer.parseInt(known);
        return;
      }
      try {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
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
              },
              "cut-proxy-accept");
      accept.setDaemon(true);
      accept.start();
      port = server.getLocalPort();
      System.setProperty(PORT, Integer.toString(port));
    }

    int port() {
      return port;
    }

    int cuts() {
      return Integer.parseInt(System.getProperty(CUTS, "0"));
    }

    void cutAfterNextCommitOnce() {
      if (System.getProperties().putIfAbsent(USED, "1") == null) {
        System.setProperty(ARMED, "1");
      }
    }

    private void pump(Socket from, Socket to, AtomicBoolean cut, boolean fromClient) {
      Thread t =
          new Thread(
              () -> {
                byte[] buf = new byte[65536];
                try (InputStream in = from.getInputStream()) {
                  OutputStream out = to.getOutputStream();
                  int n;
                  while ((n = in.read(buf)) > 0) {
                    if (cut.get()) {
                      continue; // the answer is lost
                    }
                    boolean commit =
                        fromClient
                            && "1".equals(System.getProperty(ARMED))
                            && new String(buf, 0, n, StandardCharsets.ISO_8859_1).contains("COMMIT")
                            && System.getProperties().remove(ARMED, "1");
                    if (commit) {
                      cut.set(true);
                    }
                    out.write(buf, 0, n);
                    out.flush();
                    if (commit) {
                      System.setProperty(CUTS, Integer.toString(cuts() + 1));
                      Thread.sleep(500); // PostgreSQL commits meanwhile
                      from.close();
                      to.close();
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
              },
              "cut-proxy-pump");
      t.setDaemon(true);
      t.start();
    }
  }
}
