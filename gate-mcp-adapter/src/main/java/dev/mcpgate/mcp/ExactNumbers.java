package dev.mcpgate.mcp;

import dev.mcpgate.core.hash.CanonicalJson;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import java.io.IOException;
import java.util.Map;

/**
 * JSON mappers that read numbers exactly, so that the argument hash tells apart numbers that a
 * {@code double} would merge. The SDK's default mappers read a decimal as a {@code double}, so
 * {@code 9007199254740993.0} and {@code 9007199254740992.0} arrive as the same value, and a call
 * with the one would replay the result of the other. Give the server (its transport and its
 * builder) and {@link McpGate.Builder#jsonMapper} the mapper from {@link #jsonMapper()}:
 *
 * <pre>{@code
 * McpJsonMapper json = ExactNumbers.jsonMapper();
 * var transport = HttpServletStreamableServerTransportProvider.builder().jsonMapper(json)...build();
 * McpServer.sync(transport).jsonMapper(json)...;
 * McpGate.builder(gate).jsonMapper(json)...;
 * }</pre>
 *
 * Decimals then reach the handlers as {@link java.math.BigDecimal} (read them through
 * {@link Number}); integers stay {@code Integer}, {@code Long} or {@code BigInteger}. Equal values
 * still hash alike: 1, 1.0, 1e0 and 10E-1 replay each other.
 */
public final class ExactNumbers {
  private static final String JACKSON2 = "io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper";
  private static final String JACKSON3 = "io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper";

  private ExactNumbers() {}

  /**
   * @return a mapper of the SDK's Jackson line on the class path (2 or 3), set up as the SDK's
   *     default one but reading decimals as {@link java.math.BigDecimal}
   * @throws IllegalStateException when the SDK's JSON module is neither of its Jackson modules
   */
  public static McpJsonMapper jsonMapper() {
    String line = McpJsonDefaults.getMapper().getClass().getName();
    return switch (line) {
      case JACKSON2 -> Jackson2ExactMapper.create();
      case JACKSON3 -> Jackson3ExactMapper.create();
      default -> throw new IllegalStateException("the SDK's JSON mapper is " + line + "; exact"
          + " numbers are provided for its Jackson 2 and Jackson 3 modules only: configure"
          + " yours to read decimals exactly");
    };
  }

  /**
   * @param mapper a JSON mapper
   * @return true when it reads 9007199254740993.0 and 9007199254740992.0 as different values
   */
  public static boolean readsExactly(McpJsonMapper mapper) {
    try {
      return !canonical(mapper, "9007199254740993.0").equals(canonical(mapper, "9007199254740992.0"));
    } catch (IOException e) {
      throw new IllegalStateException("the JSON mapper cannot read a number", e);
    }
  }

  private static String canonical(McpJsonMapper mapper, String number) throws IOException {
    return CanonicalJson.toCanonicalString(mapper.readValue("{\"n\":" + number + "}", Map.class));
  }
}
