package dev.mcpgate.examples;

import dev.mcpgate.mcp.TenantResolver;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * The example's command line.
 *
 * <pre>
 * java -jar mcpgate-examples.jar serve --stdio
 * java -jar mcpgate-examples.jar serve --http 8080
 * java -jar mcpgate-examples.jar demo
 * options: --jdbc-url URL (PostgreSQL, MariaDB or H2; default: an H2 file)
 *          --dynamodb-endpoint URL (claims in DynamoDB; business data stays in the JDBC database)
 *          --redis-url URL (claims in Redis; business data stays in the JDBC database)
 * </pre>
 */
public final class Main {
  private static final String USAGE =
      String.join(
          "\n",
          "usage: java -jar mcpgate-examples.jar COMMAND [OPTIONS]",
          "commands:",
          "  serve --stdio            serve MCP on stdin/stdout until stdin ends (tenant:"
              + " \"constant:local\")",
          "  serve --http PORT        serve MCP over Streamable HTTP at http://127.0.0.1:PORT/mcp",
          "                           (tenant: \"context:\" and the X-Tenant header; calls without"
              + " one are refused)",
          "  demo                     run every write tool as a retrying client would, and check"
              + " it",
          "  status --jdbc-url URL --tenant T --tool TOOL --key K  (T as stored: context:acme)",
          "                           the claim of one call and its audit history, in plain words",
          "  status --jdbc-url URL --tenant T --search TEXT",
          "                           the calls whose recorded arguments contain TEXT",
          "  status resolve --jdbc-url URL --tenant T --tool TOOL --key K",
          "         (--happened RESULT_JSON | --not-happened)",
          "                           settle a key whose outcome is unknown: it happened, with"
              + " this",
          "                           result (MCP CallToolResult JSON) to replay; or it did not,"
              + " and a",
          "                           retry runs the call",
          "options:",
          "  --jdbc-url URL           business data and claims (default: an H2 file in",
          "                           ./mcpgate-example-data; the demo uses a fresh temporary one)",
          "  --dynamodb-endpoint URL  keep the claims in DynamoDB (e.g. http://127.0.0.1:4567)",
          "  --redis-url URL          keep the claims in Redis (e.g. redis://127.0.0.1:6379)");

  private Main() {}

  /**
   * @param args the command line
   */
  public static void main(String[] args) throws Exception {
    System.exit(run(args, System.out, System.err));
  }

  /**
   * @return the exit code: 0 done; 1 for serve, could not start, and for status resolve, no unknown
   *     outcome to settle; 2 a wrong command line; 3 the database could not be opened
   */
  static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
    try {
      return command(args, out, err);
    } catch (Status.CannotOpen e) {
      err.println("mcpgate-example: " + e.getMessage());
      return 3;
    }
  }

  private static int command(String[] args, PrintStream out, PrintStream err) throws Exception {
    List<String> rest = new ArrayList<>(List.of(args));
    if (rest.isEmpty() || rest.contains("--help") || rest.contains("-h")) {
      (rest.isEmpty() ? err : out).println(USAGE);
      return rest.isEmpty() ? 2 : 0;
    }
    String command = rest.remove(0);
    boolean resolve = "status".equals(command) && !rest.isEmpty() && "resolve".equals(rest.get(0));
    if (resolve) {
      rest.remove(0);
    }
    String happened = option(rest, "--happened");
    boolean notHappened = rest.remove("--not-happened");
    String jdbcUrl = option(rest, "--jdbc-url");
    String dynamo = option(rest, "--dynamodb-endpoint");
    String redis = option(rest, "--redis-url");
    if (dynamo != null && redis != null) {
      err.println("give --dynamodb-endpoint or --redis-url, not both\n" + USAGE);
      return 2;
    }
    String tenant = option(rest, "--tenant");
    String tool = option(rest, "--tool");
    String key = option(rest, "--key");
    String search = option(rest, "--search");
    String claimsTable = option(rest, "--claims-table");
    String auditTable = option(rest, "--audit-table");
    boolean stdio = rest.remove("--stdio");
    String httpPort = option(rest, "--http");
    if (!rest.isEmpty()) {
      err.println("unknown arguments: " + rest + "\n" + USAGE);
      return 2;
    }
    switch (command) {
      case "status" -> {
        if (resolve) {
          if (jdbcUrl == null
              || tenant == null
              || tool == null
              || key == null
              || (happened == null) == !notHappened) {
            err.println(
                "status resolve needs --jdbc-url, --tenant, --tool, --key and exactly one"
                    + " of --happened RESULT_JSON and --not-happened\n"
                    + USAGE);
            return 2;
          }
          return Status.resolve(
              jdbcUrl,
              tenant,
              tool,
              key,
              happened,
              claimsTable == null ? "mcpgate_claims" : claimsTable,
              out,
              err);
        }
        if (happened != null || notHappened) {
          err.println("--happened and --not-happened belong to status resolve\n" + USAGE);
          return 2;
        }
        if (jdbcUrl == null
            || tenant == null
            || (search == null && (tool == null || key == null))) {
          err.println(
              "status needs --jdbc-url and --tenant, and --tool with --key, or --search\n" + USAGE);
          return 2;
        }
        return Status.run(
            jdbcUrl,
            tenant,
            tool,
            key,
            search,
            claimsTable == null ? "mcpgate_claims" : claimsTable,
            auditTable == null ? "mcpgate_audit" : auditTable,
            out);
      }
      case "demo" -> {
        Path scratch = null;
        if (jdbcUrl == null) {
          scratch = Files.createTempDirectory("mcpgate-demo");
          jdbcUrl = "jdbc:h2:file:" + scratch.resolve("db").toAbsolutePath();
        }
        try (ExampleServer server =
            new ExampleServer(
                new ExampleServer.Config(
                    jdbcUrl, dynamo, redis, TenantResolver.fromTransportContext("tenant")))) {
          Demo.Report report = new Demo(server).run();
          report.print(out);
          return report.passed() ? 0 : 1;
        } finally {
          TempFiles.deleteRecursively(scratch); // the server (and its H2 file) is closed by now
        }
      }
      case "serve" -> {
        if (stdio == (httpPort != null)) {
          err.println("serve needs exactly one of --stdio and --http PORT\n" + USAGE);
          return 2;
        }
        int port = 0;
        if (httpPort != null) {
          try {
            port = Integer.parseInt(httpPort);
          } catch (NumberFormatException e) {
            err.println("--http needs a port number, got \"" + httpPort + "\"");
            return 2;
          }
        }
        if (jdbcUrl == null) {
          Path dir = Path.of("mcpgate-example-data");
          Files.createDirectories(dir);
          jdbcUrl = "jdbc:h2:file:" + dir.resolve("db").toAbsolutePath();
        }
        TenantResolver tenants =
            stdio ? TenantResolver.fixed("local") : TenantResolver.fromTransportContext("tenant");
        ExampleServer server =
            new ExampleServer(new ExampleServer.Config(jdbcUrl, dynamo, redis, tenants));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(stopped::countDown));
        if (stdio) {
          err.println(
              "mcpgate-example: serving MCP on stdio; claims in " + server.storeDescription());
          Transports.stdio(server.tools(), stopped);
        } else {
          Transports.Http http;
          try {
            http = Transports.http(port, server.tools());
          } catch (IllegalStateException e) {
            err.println("mcpgate-example: " + e.getMessage() + "; stopping");
            server.close();
            return 1;
          }
          err.println(
              "mcpgate-example: serving MCP at http://127.0.0.1:"
                  + http.port()
                  + "/mcp;"
                  + " claims in "
                  + server.storeDescription());
        }
        stopped.await();
        server.close();
        return 0;
      }
      default -> {
        err.println("unknown command \"" + command + "\"\n" + USAGE);
        return 2;
      }
    }
  }

  private static String option(List<String> args, String name) {
    int i = args.indexOf(name);
    if (i < 0) {
      return null;
    }
    if (i + 1 >= args.size()) {
      throw new IllegalArgumentException(name + " needs a value");
    }
    String value = args.get(i + 1);
    args.remove(i + 1);
    args.remove(i);
    return value;
  }
}
