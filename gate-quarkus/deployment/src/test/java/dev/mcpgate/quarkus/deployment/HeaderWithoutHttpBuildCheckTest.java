package dev.mcpgate.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import dev.mcpgate.mcp.KeySource;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.jboss.jandex.DotName;
import org.jboss.jandex.Index;
import org.jboss.jandex.MethodInfo;
import org.junit.jupiter.api.Test;

/**
 * {@code KeySource.HEADER} builds only beside an HTTP transport: in an application without one
 * (stdio only) no header ever reaches the gate, and every call would be refused for want of a key.
 * (This module's tests have the HTTP transport, so the check is called as the build calls it.)
 */
class HeaderWithoutHttpBuildCheckTest {

  private static List<String> problems(boolean http) throws IOException {
    MethodInfo method =
        Index.of(HeaderTools.class).getClassByName(HeaderTools.class).firstMethod("byHeader");
    List<String> problems = new ArrayList<>();
    GateProcessor.check(
        method,
        "by_header",
        method.annotation(DotName.createSimple(Idempotent.class)),
        List.of("account"),
        false,
        true,
        http,
        problems);
    return problems;
  }

  @Test
  void withoutHttpTheBuildNamesTheToolAndTheFix() throws IOException {
    assertThat(problems(false))
        .singleElement()
        .asString()
        .contains("tool by_header (dev.mcpgate.quarkus.deployment.HeaderWithoutHttpBuildCheckTest")
        .contains("keySources names HEADER, but the application has no HTTP transport")
        .contains("quarkus-mcp-server-http");
  }

  @Test
  void withHttpTheHeaderIsAccepted() throws IOException {
    assertThat(problems(true)).isEmpty();
  }

  /** A tool whose key comes from the header only. */
  public static class HeaderTools {
    @Tool(name = "by_header", annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent(keySources = KeySource.HEADER)
    ToolResponse byHeader(String account) {
      return ToolResponse.success("done");
    }
  }
}
