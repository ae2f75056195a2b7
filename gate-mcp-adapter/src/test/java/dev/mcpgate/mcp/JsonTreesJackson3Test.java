package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.hash.CanonicalJson;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import io.modelcontextprotocol.json.McpJsonDefaults;
import java.math.BigDecimal;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * Jackson 3 trees hash like the plain values they hold, and the gate works on a class path with no
 * Jackson 2 at all (run with the SDK's Jackson 3 module, jackson-databind 2 left out).
 */
class JsonTreesJackson3Test {
  private static final JsonMapper EXACT =
      JsonMapper.builder().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();

  @Test
  void thereIsNoJackson2AndTheGateStillHashesStoresAndReplays() {
    assertThatThrownBy(() -> Class.forName("com.fasterxml.jackson.databind.ObjectMapper"))
        .isInstanceOf(ClassNotFoundException.class);
    IdempotencyGate gate = IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build();
    ToolCall call =
        ToolCall.of(
            "acme", "refund_order", "k-1", JsonTrees.toMap(EXACT.readTree(JsonTreesContract.JSON)));
    @SuppressWarnings("rawtypes")
    JsonResultMapper<Map> json = JsonResultMapper.of(McpJsonDefaults.getMapper(), Map.class);

    gate.execute(call, json, ctx -> Map.of("refund", "r_1"));
    @SuppressWarnings("rawtypes")
    GateResult<Map> replay = gate.execute(call, json, ctx -> Map.of("refund", "r_2"));

    assertThat(replay).isInstanceOf(GateResult.Replayed.class);
    assertThat(((GateResult.Replayed<?>) replay).value().toString()).isEqualTo("{refund=r_1}");
  }

  @Test
  void aTreeHashesLikeThePlainValuesOfTheSameJson() {
    Object plain = JsonTrees.toPlain(EXACT.readTree(JsonTreesContract.JSON));

    assertThat(CanonicalJson.toCanonicalString(plain))
        .isEqualTo(JsonTreesContract.CANONICAL)
        .isEqualTo(
            CanonicalJson.toCanonicalString(EXACT.readValue(JsonTreesContract.JSON, Map.class)));
  }

  @Test
  void exactDecimalsStayExact() {
    Object plain = JsonTrees.toMap(EXACT.readTree("{\"n\":9007199254740993.0}")).get("n");
    assertThat(plain)
        .isInstanceOfSatisfying(
            BigDecimal.class, d -> assertThat(d).isEqualByComparingTo("9007199254740993"));
  }
}
