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
 * Review4 of 8b8bda8 ({@code GateProcessor.requiredKey}).
 *
 * <p>1. The check counts every source but ARGUMENT as "never serves", NATURAL too (the CHANGELOG
 * and docs say META or HEADER). With {@code keySources = {NATURAL, ARGUMENT}} the natural key comes
 * first and serves on every call that carries its arguments ({@code KeyExtractor.find} returns the
 * first source in order that has a key; NATURAL is not among the "explicit" sources that must
 * agree): the warning says "a key in NATURAL never serves" and advises naming only ARGUMENT, which
 * would change every call's key. False positive with an untrue message.
 *
 * <p>2. {@code @ToolArg(defaultValue = "")}: the Quarkiverse server (1.10.0, {@code
 * McpServerProcessor.hasDefaultValue}) counts any explicitly set defaultValue, the empty one too,
 * so the argument is NOT required in the schema; the server passes "" to the method, so the gate (a
 * CDI interceptor over the parameters) sees the key argument "" on every call without one: a key in
 * _meta alone is refused ("different keys"), and a call with no key at all is refused as an empty
 * key, not idempotency_key_required. The new warning fires, but says the argument "is required in
 * the tool's schema" (false) and advises {@code required = false} (which changes nothing: the
 * default still fills it); and the existing defaultValue build error skips an empty default ({@code
 * defaultValues} keeps only non-empty ones), so nothing names the real cause.
 */
class RequiredKeyArgumentReview4Test {

  private static MethodInfo method(String name) throws IOException {
    return Index.of(Tools.class).getClassByName(Tools.class).firstMethod(name);
  }

  private static Optional<String> warning(String name) throws IOException {
    MethodInfo m = method(name);
    return KeySourceCheck.requiredKey(
        m, name, m.annotation(DotName.createSimple(Idempotent.class)));
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

  /** Tools for the checks. */
  public static class Tools {
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
  }
}
