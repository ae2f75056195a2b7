package dev.mcpgate.examples.quickstart;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's "Quick start: any MCP Java SDK server" is this module's {@link QuickStart},
 * compiled: its Java block is the file, its pom block names what the file needs at the versions the
 * build uses, and the server it starts answers a real client over stdio.
 */
class QuickStartTest {
  private static final Path ROOT = root();
  private static final Path SOURCE =
      ROOT.resolve("examples/src/main/java/dev/mcpgate/examples/quickstart/QuickStart.java");
  private static final String JAVA_MARKER =
      "<!-- quick start: examples/src/main/java/dev/mcpgate/examples/quickstart/QuickStart.java"
          + " -->";
  private static final String POM_MARKER = "<!-- quick start: pom.xml -->";

  @TempDir Path tmp;

  private static Path root() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.exists(dir.resolve("mvnw"))) {
      dir = dir.getParent();
    }
    assertThat(dir).as("the repository root (with mvnw) above the working directory").isNotNull();
    return dir;
  }

  /**
   * @return the text of the fenced block right after {@code marker} in the README
   */
  private static String readmeBlock(String marker) throws IOException {
    String readme = Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
    int at = readme.indexOf(marker);
    assertThat(at).as("README.md has the marker %s", marker).isNotNegative();
    assertThat(readme.indexOf(marker, at + 1)).as("the marker %s, once", marker).isNegative();
    Matcher block =
        Pattern.compile("\\G\\s*```[a-z]*\\n(.*?)\\n```", Pattern.DOTALL).matcher(readme);
    assertThat(block.find(at + marker.length())).as("a fenced block follows %s", marker).isTrue();
    return normalized(block.group(1));
  }

  private static String normalized(String text) {
    return text.replace("\r\n", "\n")
        .lines()
        .map(String::stripTrailing)
        .collect(Collectors.joining("\n"))
        .strip();
  }

  @Test
  void theReadmeShowsTheCompiledQuickStartAsItIs() throws IOException {
    String file = Files.readString(SOURCE, StandardCharsets.UTF_8);
    // the README leaves out the package line: the class goes wherever the reader puts it
    String shown = normalized(file.replaceFirst("(?m)\\Apackage [^;]+;\\s*", ""));
    assertThat(readmeBlock(JAVA_MARKER))
        .as("README.md's quick start must be %s as it is: copy the file into the README", SOURCE)
        .isEqualTo(shown);
  }

  @Test
  void theReadmesPomBringsWhatTheQuickStartImportsAtTheBuildsVersions() throws IOException {
    String pom = readmeBlock(POM_MARKER);
    Matcher dep =
        Pattern.compile(
                "<dependency>\\s*<groupId>([^<]+)</groupId>\\s*<artifactId>"
                    + "([^<]+)</artifactId>(?:\\s*<!--.*?-->)?\\s*<version>([^<]+)</version>",
                Pattern.DOTALL)
            .matcher(pom);
    Map<String, String> versions = new LinkedHashMap<>();
    while (dep.find()) {
      versions.put(dep.group(1) + ":" + dep.group(2), dep.group(3));
    }
    assertThat(versions)
        .containsOnlyKeys(
            "dev.mcpgate:gate-mcp-adapter",
            "dev.mcpgate:gate-jdbc",
            "io.modelcontextprotocol.sdk:mcp-json-jackson2",
            "com.zaxxer:HikariCP",
            "com.h2database:h2",
            "org.slf4j:slf4j-simple");

    // each version is the one this build compiles and runs the quick start with
    String rootPom = Files.readString(ROOT.resolve("pom.xml"), StandardCharsets.UTF_8);
    assertThat(versions.get("dev.mcpgate:gate-mcp-adapter")).isEqualTo(property(rootPom, null));
    assertThat(versions.get("dev.mcpgate:gate-jdbc")).isEqualTo(property(rootPom, null));
    assertThat(versions.get("io.modelcontextprotocol.sdk:mcp-json-jackson2"))
        .isEqualTo(property(rootPom, "mcp.version"));
    assertThat(versions.get("com.zaxxer:HikariCP"))
        .isEqualTo(property(rootPom, "hikaricp.version"));
    assertThat(versions.get("com.h2database:h2")).isEqualTo(property(rootPom, "h2.version"));
    assertThat(versions.get("org.slf4j:slf4j-simple"))
        .isEqualTo(property(rootPom, "slf4j.version"));

    // and the file imports from those artifacts (and what they bring) only
    Set<String> packages = new TreeSet<>();
    Matcher imports =
        Pattern.compile("(?m)^import ([a-z0-9_.]+)\\.[A-Z]")
            .matcher(Files.readString(SOURCE, StandardCharsets.UTF_8));
    while (imports.find()) {
      packages.add(imports.group(1));
    }
    List<String> allowed =
        List.of(
            "java.",
            "com.zaxxer.hikari",
            "dev.mcpgate.core",
            "dev.mcpgate.jdbc",
            "dev.mcpgate.mcp",
            "io.modelcontextprotocol.");
    assertThat(packages)
        .allSatisfy(
            p ->
                assertThat(allowed)
                    .anySatisfy(
                        a ->
                            assertThat(p.equals(a) || p.startsWith(a.endsWith(".") ? a : a + "."))
                                .isTrue()));
  }

  @Test
  void theReadmesPomIsAWholePomThatBuildsOneRunnableJarWithTheBuildsPlugins() throws IOException {
    String pom = readmeBlock(POM_MARKER);
    String rootPom = Files.readString(ROOT.resolve("pom.xml"), StandardCharsets.UTF_8);
    assertThat(pom)
        .startsWith("<project ")
        .endsWith("</project>")
        .contains("<modelVersion>4.0.0</modelVersion>")
        .contains("<maven.compiler.release>17</maven.compiler.release>")
        .contains("<mainClass>QuickStart</mainClass>")
        .contains("ServicesResourceTransformer")
        .contains("<finalName>shop-mcp</finalName>");
    for (String plugin : List.of("maven-compiler-plugin", "maven-shade-plugin")) {
      assertThat(pluginVersion(pom, plugin))
          .as("%s at the version this build uses", plugin)
          .isEqualTo(pluginVersion(rootPom, plugin));
    }
  }

  private static String pluginVersion(String pom, String artifactId) {
    Matcher m =
        Pattern.compile(
                "<artifactId>" + Pattern.quote(artifactId) + "</artifactId>\\s*<version>([^<]+)<")
            .matcher(pom);
    assertThat(m.find()).as("%s has a version in the pom", artifactId).isTrue();
    return m.group(1);
  }

  @Test
  void theQuickStartExitsWhenItsClientClosesStdinAndWritesNothingButProtocolToStdout()
      throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process server =
        new ProcessBuilder(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                "-Dshop.db=jdbc:h2:file:" + tmp.resolve("exit"),
                QuickStart.class.getName())
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    try {
      server
          .getOutputStream()
          .write(
              ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                      + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                      + "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n")
                  .getBytes(StandardCharsets.UTF_8));
      server.getOutputStream().flush();
      BufferedReader stdout =
          new BufferedReader(
              new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
      List<String> lines = new ArrayList<>();
      lines.add(stdout.readLine()); // the answer to initialize: the server is up
      server.getOutputStream().close(); // the client goes away
      assertThat(server.waitFor(30, TimeUnit.SECONDS))
          .as("the server exits once stdin is closed")
          .isTrue();
      stdout.lines().forEach(lines::add);
      assertThat(lines)
          .isNotEmpty()
          .allSatisfy(line -> assertThat(line).startsWith("{\"jsonrpc\":\"2.0\""));
    } finally {
      server.destroyForcibly();
    }
  }

  /**
   * @return the root pom's property {@code name}, or the project's version for null
   */
  private static String property(String pom, String name) {
    Matcher m =
        Pattern.compile(
                name == null
                    ? "<artifactId>mcpgate-parent</artifactId>\\s*<version>([^<]+)</version>"
                    : "<" + Pattern.quote(name) + ">([^<]+)</" + Pattern.quote(name) + ">")
            .matcher(pom);
    assertThat(m.find()).as("the root pom has %s", name == null ? "a version" : name).isTrue();
    return m.group(1);
  }

  @Test
  @SuppressWarnings("unchecked")
  void theQuickStartServesARealClientOverStdioAndItsToolIsSafeToCallTwice() {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ServerParameters params =
        ServerParameters.builder(java)
            .args(
                "-cp",
                System.getProperty("java.class.path"),
                "-Dshop.db=jdbc:h2:file:" + tmp.resolve("shop"),
                QuickStart.class.getName())
            .build();
    McpSyncClient client =
        McpClient.sync(new StdioClientTransport(params, McpJsonDefaults.getMapper()))
            .requestTimeout(Duration.ofSeconds(60))
            .initializationTimeout(Duration.ofSeconds(60))
            .build();
    try {
      client.initialize();
      McpSchema.Tool tool = client.listTools().tools().get(0);
      assertThat(tool.name()).isEqualTo("refund_order");
      assertThat((Map<String, Object>) tool.inputSchema().get("properties"))
          .containsKey("idempotency_key");

      CallToolResult first = client.callTool(refund("ord_1", 1250, "k-1"));
      CallToolResult retry = client.callTool(refund("ord_1", 1250, "k-1"));
      CallToolResult other = client.callTool(refund("ord_1", 999, "k-1"));
      CallToolResult noKey = client.callTool(refund("ord_1", 1250, null));

      assertThat(first.isError()).isNotEqualTo(Boolean.TRUE);
      assertThat(text(first)).startsWith("Refunded 1250 cents of ord_1: re_");
      assertThat(text(retry)).isEqualTo(text(first)); // the same refund id: it ran once
      assertThat(retry.meta()).containsEntry("dev.mcpgate/replayed", true);
      assertThat(other.isError()).isTrue();
      assertThat(structuredError(other)).containsEntry("type", "idempotency_key_conflict");
      assertThat(structuredError(noKey)).containsEntry("type", "idempotency_key_required");

      // the amount is converted exactly and bounded: no huge, rounded or negative refund runs
      assertThat((Map<String, Object>) tool.inputSchema().get("properties"))
          .extractingByKey("amount_cents")
          .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
          .containsEntry("minimum", 1)
          .containsEntry("maximum", 100_000_000);
      int k = 0;
      for (Object amount :
          List.of(
              new java.math.BigDecimal("1e400"),
              new java.math.BigInteger("18446744073709552866"),
              -1250,
              0,
              new java.math.BigDecimal("12.5"))) {
        CallToolResult bad = client.callTool(refund("ord_1", amount, "k-bad-" + k++));
        // refused by the SDK's check of the schema's bounds, or by the handler's exact reading
        assertThat(bad.isError()).as("amount %s", amount).isTrue();
        assertThat(text(bad)).as("amount %s", amount).doesNotContain("Refunded");
      }
    } finally {
      client.closeGracefully();
    }
  }

  @Test
  void theHandlerReadsTheAmountExactlyOrNotAtAll() {
    // what the schema's bounds do not catch (a server whose SDK does not check them) the handler
    // does: never a truncated or rounded amount
    assertThat(QuickStart.cents(1250)).isEqualTo(1250);
    assertThat(QuickStart.cents(new java.math.BigDecimal("1250.0"))).isEqualTo(1250);
    assertThat(QuickStart.cents(new java.math.BigDecimal("1e400"))).isZero();
    assertThat(QuickStart.cents(new java.math.BigInteger("18446744073709552866"))).isZero();
    assertThat(QuickStart.cents(new java.math.BigDecimal("12.5"))).isZero();
    assertThat(QuickStart.cents(Double.NaN)).isZero();
    assertThat(QuickStart.cents("1250")).isZero();
    assertThat(QuickStart.cents(-1250)).isEqualTo(-1250); // then refused: below the minimum
  }

  private static CallToolRequest refund(String orderId, Object amountCents, String key) {
    Map<String, Object> args = new LinkedHashMap<>();
    args.put("order_id", orderId);
    args.put("amount_cents", amountCents);
    if (key != null) {
      args.put("idempotency_key", key);
    }
    return new CallToolRequest("refund_order", args);
  }

  private static String text(CallToolResult result) {
    List<String> texts = new ArrayList<>();
    result.content().forEach(c -> texts.add(((McpSchema.TextContent) c).text()));
    return String.join("\n", texts);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> structuredError(CallToolResult result) {
    assertThat(result.isError()).as("isError of %s", result).isTrue();
    return (Map<String, Object>) ((Map<String, Object>) result.structuredContent()).get("error");
  }
}
