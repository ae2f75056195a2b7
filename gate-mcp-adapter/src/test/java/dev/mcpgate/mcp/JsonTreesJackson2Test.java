package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.mcpgate.core.hash.CanonicalJson;
import io.modelcontextprotocol.json.McpJsonDefaults;
import java.math.BigDecimal;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Jackson 2 trees hash like the plain values they hold (run with the SDK's Jackson 2 module). */
class JsonTreesJackson2Test {
  private static final ObjectMapper EXACT =
      new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  @Test
  void aTreeHashesLikeThePlainValuesOfTheSameJson() throws Exception {
    String json = JsonTreesContract.JSON;
    Object plain = JsonTrees.toPlain(EXACT.readTree(json));

    assertThat(CanonicalJson.toCanonicalString(plain))
        .isEqualTo(JsonTreesContract.CANONICAL)
        .isEqualTo(CanonicalJson.toCanonicalString(EXACT.readValue(json, Map.class)));
    assertThat(JsonTrees.toMap(EXACT.readTree(json))).containsKeys("a", "b", "c");
  }

  @Test
  void exactDecimalsStayExact() throws Exception {
    Object plain = JsonTrees.toMap(EXACT.readTree("{\"n\":9007199254740993.0}")).get("n");
    assertThat(plain)
        .isInstanceOfSatisfying(
            BigDecimal.class, d -> assertThat(d).isEqualByComparingTo("9007199254740993"));
  }

  @Test
  void nodesWithoutAJsonValueAndOtherObjectsAreRefusedNamingThem() {
    var tree = JsonNodeFactory.instance.objectNode();
    tree.putArray("list").addPOJO(new Object());
    assertThatThrownBy(() -> JsonTrees.toPlain(tree))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("$.list[0]")
        .hasMessageContaining("POJO");
    assertThatThrownBy(() -> JsonTrees.toPlain("text"))
        .hasMessageContaining("Jackson 2 or Jackson 3 JsonNode")
        .hasMessageContaining("String");
    assertThatThrownBy(() -> JsonTrees.toMap(EXACT.readTree("[1]")))
        .hasMessageContaining("a JSON object was expected");
  }

  @Test
  void jsonResultsRoundTripThroughTheSdksMapper() {
    @SuppressWarnings("rawtypes")
    JsonResultMapper<Map> mapper = JsonResultMapper.of(McpJsonDefaults.getMapper(), Map.class);
    @SuppressWarnings("unchecked")
    Map<String, Object> back =
        mapper.fromBytes(mapper.toBytes(Map.of("refund", "r_1", "cents", 500)));
    assertThat(back).containsEntry("refund", "r_1").containsEntry("cents", 500);
    assertThatThrownBy(() -> mapper.fromBytes("{not json".getBytes()))
        .hasMessageContaining("cannot read stored JSON as java.util.Map");
  }
}
