package dev.mcpgate.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import dev.mcpgate.mcp.KeySource;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import java.io.IOException;
import java.util.Optional;
import org.jboss.jandex.DotName;
import org.jboss.jandex.Index;
import org.jboss.jandex.MethodInfo;
import org.junit.jupiter.api.Test;

/**
 * Review5 of e372dbd ({@code GateProcessor.requiredKey}). To fix the {NATURAL, ARGUMENT} false
 * positive, NATURAL was dropped from the check altogether. With {@code keySources = {ARGUMENT,
 * NATURAL}} (the order {@code ToolPolicy.Builder.naturalKey} itself gives) and a key argument that
 * is required in the schema (a plain {@code String @ToolArg}), every call that reaches the gate
 * carries the key argument, and {@code KeyExtractor.find} returns the first source that has a key:
 * ARGUMENT, always. The natural key never serves, and a model's fresh key per attempt is always the
 * one gated; the build says nothing (under "key sources that never serve").
 */
class RequiredKeyArgumentReview5Test {

  private static Optional<String> warning(String name) throws IOException {
    MethodInfo m = Index.of(Tools.class).getClassByName(Tools.class).firstMethod(name);
    return KeySourceCheck.requiredKey(
        m, name, m.annotation(DotName.createSimple(Idempotent.class)));
  }

  @Test
  void aNaturalKeyAfterARequiredKeyArgumentIsNamed() throws IOException {
    assertThat(warning("naturalAfter"))
        .as("ARGUMENT first and required: the natural key after it never serves")
        .isPresent();
  }

  /** Tools for the checks. */
  public static class Tools {
    @Tool(annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent(
        keySources = {KeySource.ARGUMENT, KeySource.NATURAL},
        naturalKey = "account")
    ToolResponse naturalAfter(String account, @ToolArg(name = "idempotency_key") String key) {
      return ToolResponse.success("done");
    }
  }
}
