package dev.mcpgate.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;

/**
 * Finds a real Redis server: the URL in {@code MCPGATE_TEST_REDIS_URL} (CI sets it), else one
 * started by Testcontainers where Docker runs, else a private {@code redis-server} from the PATH on
 * a free port. Without any, the tests are skipped with a message, or fail when {@code
 * MCPGATE_TEST_REQUIRE_ALL=true}. Never a mock.
 */
final class TestRedis {
  private static volatile String url;
  private static volatile String unavailable;
  private static volatile RedisClient client;
  private static boolean announced;

  private TestRedis() {}

  static synchronized String url() {
    if (url == null && unavailable == null) {
      String env = System.getenv("MCPGATE_TEST_REDIS_URL");
      if (env != null && !env.isBlank()) {
        url = env;
      } else if (dockerAvailable()) {
        try {
          GenericContainer<?> redis =
              new GenericContainer<>("redis:7-alpine").withExposedPorts(6379);
          redis.start();
          url = "redis://" + redis.getHost() + ":" + redis.getMappedPort(6379);
        } catch (RuntimeException e) {
          unavailable = "Testcontainers could not start Redis: " + e.getMessage();
        }
      } else if (redisServerBinary() != null) {
        try {
          url = "redis://127.0.0.1:" + PrivateRedis.start(freePort()).port();
        } catch (IOException e) {
          unavailable = "could not start redis-server from the PATH: " + e.getMessage();
        }
      } else {
        unavailable =
            "MCPGATE_TEST_REDIS_URL is not set, there is no Docker engine, and no redis-server on"
                + " the PATH (install Redis, or set the variable to redis://host:6379)";
      }
    }
    if (!announced) {
      announced = true;
      System.err.println(
          "[mcpgate tests] Redis: "
              + (url != null ? "running on " + url : "SKIPPED, " + unavailable));
    }
    if (url == null) {
      String message = "Redis tests need a real Redis server: " + unavailable;
      if ("true".equalsIgnoreCase(System.getenv("MCPGATE_TEST_REQUIRE_ALL"))) {
        Assertions.fail(
            message + " (MCPGATE_TEST_REQUIRE_ALL=true: a skipped backend is a failure)");
      }
      Assumptions.abort(message);
    }
    return url;
  }

  /** One client for the whole run (Lettuce clients are heavy; connections are cheap). */
  static synchronized RedisClient client() {
    if (client == null) {
      client = RedisClient.create(RedisURI.create(url()));
    }
    return client;
  }

  static String redisServerBinary() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path candidate = Path.of(dir, "redis-server");
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    return null;
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static boolean dockerAvailable() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (Throwable t) {
      return false;
    }
  }

  /** A redis-server of the test's own, on loopback, keeping nothing on disk. */
  record PrivateRedis(Process process, int port) implements AutoCloseable {
    static PrivateRedis start(int port) throws IOException {
      String binary = redisServerBinary();
      if (binary == null) {
        throw new IOException("no redis-server on the PATH");
      }
      Process process =
          new ProcessBuilder(
                  List.of(
                      binary,
                      "--port",
                      Integer.toString(port),
                      "--bind",
                      "127.0.0.1",
                      "--save",
                      "",
                      "--appendonly",
                      "no",
                      "--daemonize",
                      "no"))
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (System.nanoTime() < deadline) {
        try (Socket s = new Socket("127.0.0.1", port)) {
          return new PrivateRedis(process, port);
        } catch (IOException notYet) {
          try {
            Thread.sleep(50);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            break;
          }
        }
      }
      process.destroyForcibly();
      throw new IOException("redis-server did not listen on port " + port + " within 10 s");
    }

    /** Kills the server (SIGKILL) and waits for it to be gone. */
    void kill() throws InterruptedException {
      process.destroyForcibly().waitFor();
    }

    @Override
    public void close() throws InterruptedException {
      kill();
    }
  }
}
