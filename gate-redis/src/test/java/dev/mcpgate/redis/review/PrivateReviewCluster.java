package dev.mcpgate.redis.review;

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
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Six {@code redis-server} processes of the test's own made one cluster (three masters with a
 * replica each, a 2 s node timeout so that a failover is quick), for faults the shared cluster must
 * not see (a master killed). Skipped without {@code redis-server} and {@code redis-cli} on the
 * PATH.
 */
final class PrivateReviewCluster implements AutoCloseable {
  final List<Integer> ports;
  private final List<Process> servers;

  private PrivateReviewCluster(List<Integer> ports, List<Process> servers) {
    this.ports = ports;
    this.servers = servers;
  }

  static PrivateReviewCluster start() throws IOException, InterruptedException {
    String server = binary("redis-server");
    String cli = binary("redis-cli");
    Assumptions.assumeTrue(server != null && cli != null, "no redis-server and redis-cli");
    Path dir = Files.createTempDirectory("mcpgate-review-cluster");
    List<Integer> ports = ports(6);
    List<Process> servers = new ArrayList<>();
    PrivateReviewCluster cluster = new PrivateReviewCluster(ports, servers);
    try {
      for (int port : ports) {
        servers.add(
            new ProcessBuilder(
                    List.of(
                        server,
                        "--port",
                        Integer.toString(port),
                        "--bind",
                        "127.0.0.1",
                        "--cluster-enabled",
                        "yes",
                        "--cluster-node-timeout",
                        "2000",
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
      List<String> create = new ArrayList<>(List.of(cli, "--cluster", "create"));
      ports.forEach(p -> create.add("127.0.0.1:" + p));
      create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
      Process p = new ProcessBuilder(create).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IOException("redis-cli --cluster create failed: " + out);
      }
      for (int port : ports) {
        awaitReply(port, "cluster_state:ok", 30, "cluster", "info");
        if (cli(port, "info", "replication").contains("role:slave")) {
          awaitReply(port, "master_link_status:up", 30, "info", "replication");
        }
      }
      return cluster;
    } catch (IOException | InterruptedException | RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  /** The port of a master that holds slots. */
  int aMaster() throws IOException, InterruptedException {
    for (int port : ports) {
      if (cli(port, "info", "replication").contains("role:master")) {
        return port;
      }
    }
    throw new IOException("no master");
  }

  /** Kills the server on {@code port} (SIGKILL), as a crashed host would end. */
  void kill(int port) throws InterruptedException {
    servers.get(ports.indexOf(port)).destroyForcibly().waitFor();
  }

  /**
   * Stops the server on {@code port} (SIGSTOP, or SIGCONT when {@code frozen} is false): its
   * connections stay open and new ones are accepted by the kernel, but it answers nothing, as a
   * host that hangs (a stalled VM, a full disk, a swap storm) does.
   */
  void freeze(int port, boolean frozen) throws IOException, InterruptedException {
    long pid = servers.get(ports.indexOf(port)).pid();
    new ProcessBuilder("kill", frozen ? "-STOP" : "-CONT", Long.toString(pid)).start().waitFor();
  }

  /**
   * Waits until every node but {@code gone} lists {@code gone} as a failed master without slots
   * (its replica promoted in its place) and reports {@code cluster_state:ok}.
   */
  void awaitFailoverOf(int gone) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    for (int port : ports) {
      if (port == gone) {
        continue;
      }
      while (true) {
        boolean replaced = false;
        for (String line : cli(port, "cluster", "nodes").split("\n")) {
          String[] f = line.strip().split(" ");
          if (f.length >= 8 && f[1].startsWith("127.0.0.1:" + gone + "@")) {
            replaced = f[2].contains("master") && f[2].contains("fail") && f.length == 8;
          }
        }
        if (replaced && cli(port, "cluster", "info").contains("cluster_state:ok")) {
          break;
        }
        if (System.nanoTime() > deadline) {
          throw new IOException("node " + port + " did not see " + gone + " replaced in 60 s");
        }
        Thread.sleep(100);
      }
    }
  }

  static void awaitReply(int port, String expected, int seconds, String... command)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    String out = cli(port, command);
    while (!out.contains(expected)) {
      if (System.nanoTime() > deadline) {
        throw new IOException(
            "node " + port + " did not answer " + expected + " in " + seconds + " s: " + out);
      }
      Thread.sleep(100);
      out = cli(port, command);
    }
  }

  static String cli(int port, String... command) throws IOException, InterruptedException {
    List<String> line = new ArrayList<>(List.of(binary("redis-cli"), "-p", "" + port));
    line.addAll(List.of(command));
    Process p = new ProcessBuilder(line).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    return out;
  }

  private static String binary(String name) {
    for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path candidate = Path.of(d, name);
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    return null;
  }

  private static List<Integer> ports(int n) throws IOException {
    List<Integer> ports = new ArrayList<>();
    for (int tries = 0; ports.size() < n && tries < 1000; tries++) {
      int port = ThreadLocalRandom.current().nextInt(20000, 55000);
      if (!ports.contains(port) && free(port) && free(port + 10000)) {
        ports.add(port);
      }
    }
    if (ports.size() < n) {
      throw new IOException("found no " + n + " free port pairs");
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
    throw new IOException("redis-server did not listen on port " + port);
  }

  @Override
  public void close() {
    for (Process p : servers) {
      try {
        new ProcessBuilder("kill", "-CONT", Long.toString(p.pid())).start().waitFor();
      } catch (IOException | InterruptedException e) {
        // killed anyway
      }
      p.destroyForcibly();
    }
  }
}
