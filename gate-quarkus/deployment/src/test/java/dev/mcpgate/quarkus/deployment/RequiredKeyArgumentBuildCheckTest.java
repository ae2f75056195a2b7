package dev.mcpgate.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import dev.mcpgate.mcp.KeySource;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jboss.jandex.DotName;
import org.jboss.jandex.Index;
import org.jboss.jandex.MethodInfo;
import org.junit.jupiter.api.Test;

/**
 * The MCP server refuses a call that lacks a required argument before the gate sees it. A key
 * argument that is required in the tool's schema (the server's rule: {@code @ToolArg(required)} if
 * set, else required unless an {@code Optional}) while {@code keySources} also names {@code META}
 * or {@code HEADER} leaves those sources unserved: the build warns, naming the tool and the fix. So
 * does a natural key listed after such an argument; one listed before it serves. An explicit {@code
 * defaultValue}, even {@code ""}, makes the argument optional in the schema, and on a key argument
 * fails the build (reviews 4 and 5 of the check).
 */
class RequiredKeyArgumentBuildCheckTest {

  private static MethodInfo method(String name) throws IOException {
    return Index.of(KeyTools.class).getClassByName(KeyTools.class).firstMethod(name);
  }

  private static Optional<String> warning(String method) throws IOException {
    MethodInfo m = method(method);
    return KeySourceCheck.requiredKey(
        m, method, m.annotation(DotName.createSimple(Idempotent.class)));
  }

  @Test
  void aKeyArgumentRequiredByDefaultBesideMetaIsNamedWithTheFix() throws IOException {
    assertThat(warning("byDefault"))
        .get()
        .asString()
        .contains("byDefault: its key argument idempotency_key is required in the tool's schema")
        .contains("a key from META never serves")
        .contains("@ToolArg(required = false)");
  }

  @Test
  void aKeyArgumentMarkedRequiredBesideAHeaderIsNamed() throws IOException {
    assertThat(warning("markedRequired"))
        .get()
        .asString()
        .contains("a key from META or HEADER never serves");
  }

  @Test
  void aKeyWithoutToolArgIsRequiredTooAndAnOptionalOneIsNot() throws IOException {
    assertThat(warning("bare")).get().asString().contains("its key argument idempotency_key");
    assertThat(warning("optional")).isEmpty();
  }

  @Test
  void anOptionalKeyOrAKeyFromTheArgumentAloneIsNotNamed() throws IOException {
    assertThat(warning("notRequired")).isEmpty();
    assertThat(warning("argumentOnly")).isEmpty();
    assertThat(warning("metaOnly")).isEmpty();
  }

  @Test
  void aNaturalKeyThatComesFirstIsNotToldItNeverServes() throws IOException {
    assertThat(warning("naturalFirst"))
        .as("NATURAL precedes ARGUMENT: the natural key serves on every call with its arguments")
        .isEmpty();
  }

  @Test
  void anEmptyDefaultValueIsNotCalledRequiredInTheSchema() throws IOException {
    assertThat(warning("emptyDefault"))
        .as("the server counts an explicit defaultValue = \"\": the argument is not required")
        .isEmpty();
  }

  @Test
  void anEmptyDefaultValueOnTheKeyIsNamedAtBuild() throws IOException {
    MethodInfo m = method("emptyDefault");
    List<String> problems = new ArrayList<>();
    GateProcessor.check(
        m,
        "emptyDefault",
        m.annotation(DotName.createSimple(Idempotent.class)),
        List.of("account", "idempotency_key"),
        false,
        true,
        true,
        problems);
    assertThat(problems)
        .as("the server fills a missing key argument with \"\" on every call")
        .singleElement()
        .asString()
        .contains("its key argument idempotency_key has defaultValue = \"\"")
        .contains("such a call is refused for an empty key")
        .contains("remove the defaultValue");
  }

  @Test
  void aNaturalKeyAfterARequiredKeyArgumentIsNamed() throws IOException {
    assertThat(warning("naturalAfter"))
        .as("ARGUMENT first and required: the natural key after it never serves")
        .isPresent();
  }

  /** Tools whose key argument is or is not required in their schema. */
  public static class KeyTools {
    @Tool(annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent
    ToolResponse byDefault(String account, @ToolArg(name = "idempotency_key") String key) {
      return ToolResponse.success("done");
    }

    @Tool(annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent(keySources = {KeySource.ARGUMENT, KeySource.META, KeySource.HEADER})
    ToolResponse markedRequired(
        String account, @ToolArg(name = "idempotency_key", required = true) Optional<String> key) {
      return ToolResponse.success("done");
    }

    @Tool(annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent(keyArgument = "idempotency_key")
    ToolResponse bare(String account, String idempotency_key) {
      return ToolResponse.success("done");
    }

    @Tool(annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent(keyArgument = "idempotency_key")
    ToolResponse optional(String account, Optional<String> idempotency_key) {
      return ToolResponse.success("done");
    }

    @Tool(annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent
    ToolResponse notRequired(
        String account, @ToolArg(name = "idempotency_key", required = false) String key) {
      return ToolResponse.success("done");
    }

    @Tool(annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent(keySources = KeySource.ARGUMENT)
    ToolResponse argumentOnly(String account, @ToolArg(name = "idempotency_key") String key) {
      return ToolResponse.success("done");
    }

    @Tool(annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent(keySources = KeySource.META)
    ToolResponse metaOnly(String account, @ToolArg(name = "idempotency_key") String key) {
      return ToolResponse.success("done");
    }

    @Tool(annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent(
        keySources = {KeySource.NATURAL, KeySource.ARGUMENT},
        naturalKey = "account")
    ToolResponse naturalFirst(String account, @ToolArg(name = "idempotency_key") String key) {
      return ToolResponse.success("done");
    }

    @Tool(annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent
    ToolResponse emptyDefault(
        String account, @ToolArg(name = "idempotency_key", defaultValue = "") String key) {
      return ToolResponse.success("done");
    }

    @Tool(annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent(
        keySources = {KeySource.ARGUMENT, KeySource.NATURAL},
        naturalKey = "account")
    ToolResponse naturalAfter(String account, @ToolArg(name = "idempotency_key") String key) {
      return ToolResponse.success("done");
    }
  }
}
