package dev.mcpgate.redis;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * Finds a real Redis Cluster: the seed URL(s) in {@code MCPGATE_TEST_REDIS_CLUSTER_URL}
 * (comma-separated; CI sets it), else a private cluster of three masters with a replica each,
 * started from {@code redis-server} and {@code redis-cli} on the PATH (six processes on free
 * loopback ports, {@code redis-cli --cluster create}, nothing kept on disk; killed when the JVM
 * exits). Without either, the tests are skipped with one console line, or fail when {@code
 * MCPGATE_TEST_REQUIRE_ALL=true}. Never a mock.
 */
final class TestRedisCluster {
  private static volatile List<RedisURI> seeds;
  private static volatile String unavailable;
  private static volatile RedisClusterClient client;
  private static boolean announced;

  private TestRedisCluster() {}

  static synchronized List<RedisURI> seeds() {
    if (seeds == null && unavailable == null) {
      String env = System.getenv("MCPGATE_TEST_REDIS_CLUSTER_URL");
      if (env != null && !env.isBlank()) {
        List<RedisURI> list = new ArrayList<>();
        for (String url : env.split(",")) {
          if (!url.isBlank()) {
            list.add(RedisURI.create(url.strip()));
          }
        }
        seeds = List.copyOf(list);
      } else if (TestRedis.redisServerBinary() == null || binary("redis-cli") == null) {
        unavailable =
            "MCPGATE_TEST_REDIS_CLUSTER_URL is not set, and there is no redis-server"
                + " and redis-cli on the PATH to start a private cluster (install Redis, or set the"
                + " variable to redis://host:7001)";
      } else {
        try {
          seeds = List.of(RedisURI.create("redis://127.0.0.1:" + PrivateCluster.start()));
        } catch (IOException e) {
          unavailable = "could not start a private Redis Cluster from the PATH: " + e.getMessage();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          unavailable = "interrupted while starting a private Redis Cluster";
        }
      }
    }
    if (!announced) {
      announced = true;
      System.err.println(
          "[mcpgate tests] Redis Cluster: "
              + (seeds != null ? "running at " + seeds : "SKIPPED, " + unavailable));
    }
    if (seeds == null) {
      String message = "Redis Cluster tests need a real Redis Cluster: " + unavailable;
      if ("true".equalsIgnoreCase(System.getenv("MCPGATE_TEST_REQUIRE_ALL"))) {
        Assertions.fail(
            message + " (MCPGATE_TEST_REQUIRE_ALL=true: a skipped backend is a failure)");
      }
      Assumptions.abort(message);
    }
    return seeds;
  }

  /** A new cluster client that follows failovers at once (adaptive topology refresh). */
  static RedisClusterClient newClient() {
    RedisClusterClient c = RedisClusterClient.create(seeds());
    c.setOptions(
        ClusterClientOptions.builder()
            .topologyRefreshOptions(
                ClusterTopologyRefreshOptions.builder().enableAllAdaptiveRefreshTriggers().build())
            .build());
    return c;
  }

  /** One client for the whole run (Lettuce clients are heavy; connections are cheap). */
  static synchronized RedisClusterClient client() {
    if (client == null) {
      client = newClient();
    }
    return client;
  }

  /**
   * Waits until the topology has settled after a failover: every node's own {@code CLUSTER NODES}
   * names the same masters, each of those answers {@code ROLE} as a master, and the shared client's
   * view (refreshed) names them too. Until then two views of the cluster may disagree on which node
   * is a master, and a test that picks a node from one view and a store that reads the other do not
   * look at the same node.
   */
  static void awaitSettledTopology() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    String last = "never read";
    while (System.nanoTime() < deadline) {
      client().refreshPartitions();
      try (StatefulRedisClusterConnection<String, String> admin = client().connect()) {
        Set<String> seen = mastersOf(admin.getPartitions());
        boolean agreed = !seen.isEmpty();
        for (RedisClusterNode node : admin.getPartitions()) {
          RedisClusterCommands<String, String> redis = admin.getConnection(node.getNodeId()).sync();
          Set<String> itsView = mastersIn(redis.clusterNodes());
          boolean master = "master".equals(String.valueOf(redis.role().get(0)));
          if (!itsView.equals(seen) || master != seen.contains(node.getNodeId())) {
            agreed = false;
            last = node.getUri() + " sees masters " + itsView + ", the client " + seen;
          }
        }
        if (agreed) {
          return;
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError("the Redis Cluster's topology did not settle within 30 s: " + last);
  }

  private static Set<String> mastersOf(Partitions partitions) {
    Set<String> ids = new TreeSet<>();
    partitions.forEach(
        n -> {
          if (n.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
            ids.add(n.getNodeId());
          }
        });
    return ids;
  }

  /** The ids a {@code CLUSTER NODES} reply flags as masters (not failed). */
  private static Set<String> mastersIn(String clusterNodes) {
    Set<String> ids = new TreeSet<>();
    for (String line : clusterNodes.split("\n")) {
      String[] fields = line.strip().split(" ");
      if (fields.length > 2) {
        List<String> flags = List.of(fields[2].split(","));
        if (flags.contains("master") && !flags.contains("fail")) {
          ids.add(fields[0]);
        }
      }
    }
    return ids;
  }

  static String binary(String name) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path candidate = Path.of(dir, name);
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    return null;
  }

  /** Six redis-server processes of the tests' own, made one cluster by redis-cli. */
  static final class PrivateCluster {
    private PrivateCluster() {}

    /**
     * @return the port of the first master
     */
    static int start() throws IOException, InterruptedException {
      Path dir = Files.createTempDirectory("mcpgate-redis-cluster");
      List<Integer> ports = ports(6);
      List<Process> servers = new ArrayList<>();
      Runtime.getRuntime().addShutdownHook(new Thread(() -> servers.forEach(Process::destroy)));
      for (int port : ports) {
        servers.add(
            new ProcessBuilder(
                    List.of(
                        TestRedis.redisServerBinary(),
                        "--port",
                        Integer.toString(port),
                        "--bind",
                        "127.0.0.1",
                        "--cluster-enabled",
                        "yes",
                        "--cluster-config-file",
                        "nodes-" + port + ".conf",
                        "--save",
                        "",
                        "--appendonly",
                        "no",
                        "--repl-diskless-sync-delay",
                        "0",
                        "--daemonize",
                        "no",
                        "--dir",
                        dir.toString()))
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve(port + ".log").toFile())
                .start());
      }
      for (int port : ports) {
        awaitListening(port);
      }
      List<String> create = new ArrayList<>(List.of(binary("redis-cli"), "--cluster", "create"));
      ports.forEach(p -> create.add("127.0.0.1:" + p));
      create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
      Process cli = new ProcessBuilder(create).redirectErrorStream(true).start();
      String out = new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!cli.waitFor(60, TimeUnit.SECONDS) || cli.exitValue() != 0) {
        throw new IOException("redis-cli --cluster create failed: " + out);
      }
      awaitStateOk(ports);
      return ports.get(0);
    }

    /** n free ports whose cluster bus ports (port + 10000) are free too. */
    private static List<Integer> ports(int n) throws IOException {
      List<Integer> ports = new ArrayList<>();
      for (int tries = 0; ports.size() < n && tries < 1000; tries++) {
        int port = ThreadLocalRandom.current().nextInt(20000, 55000);
        if (!ports.contains(port) && free(port) && free(port + 10000)) {
          ports.add(port);
        }
      }
      if (ports.size() < n) {
        throw new IOException("found no " + n + " free port pairs (port and port + 10000)");
      }
      return ports;
    }

    private static boolean free(int port) {
      try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        return true;
      } catch (IOException taken) {
        return false;
      }
    }

    private static void awaitListening(int port) throws IOException, InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (System.nanoTime() < deadline) {
        try (Socket s = new Socket("127.0.0.1", port)) {
          return;
        } catch (IOException notYet) {
          Thread.sleep(50);
        }
      }
      throw new IOException("redis-server did not listen on port " + port + " within 10 s");
    }

    /** Waits for cluster_state:ok on every node and for every replica's link to its master. */
    private static void awaitStateOk(List<Integer> ports) throws IOException, InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      for (int port : ports) {
        await(port, deadline, "cluster_state:ok", "cluster", "info");
        String replication = cli(port, "info", "replication");
        if (replication.contains("role:slave")) {
          await(port, deadline, "master_link_status:up", "info", "replication");
        }
      }
    }

    private static void await(int port, long deadline, String expected, String... command)
        throws IOException, InterruptedException {
      String out = cli(port, command);
      while (!out.contains(expected)) {
        if (System.nanoTime() > deadline) {
          throw new IOException(
              "the cluster node on port " + port + " did not report " + expected + " within 30 s");
        }
        Thread.sleep(100);
        out = cli(port, command);
      }
    }

    private static String cli(int port, String... command)
        throws IOException, InterruptedException {
      List<String> line =
          new ArrayList<>(List.of(binary("redis-cli"), "-p", Integer.toString(port)));
      line.addAll(List.of(command));
      Process p = new ProcessBuilder(line).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor();
      return out;
    }
  }
}
