package dev.mcpgate.mcp;

import dev.mcpgate.core.hash.CanonicalJson;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JSON mappers that read numbers exactly, so that the argument hash tells apart numbers that a
 * {@code double} would merge. The SDK's default mappers read a decimal as a {@code double}, so
 * {@code 9007199254740993.0} and {@code 9007199254740992.0} arrive as the same value, and a call
 * with the one would replay the result of the other. Give the server (its transport and its
 * builder) and {@link McpGate.Builder#jsonMapper} the mapper from {@link #jsonMapper()}:
 *
 * <pre>{@code
 * McpJsonMapper json = ExactNumbers.jsonMapper();
 * var transport =
 *     HttpServletStreamableServerTransportProvider.builder().jsonMapper(json)...build();
 * // stdio: var transport = new StdioServerTransportProvider(json);
 * McpServer.sync(transport).jsonMapper(json)...;
 * McpGate.builder(gate).jsonMapper(json)...;
 * }</pre>
 *
 * Decimals then reach the handlers as {@link java.math.BigDecimal} (read them through {@link
 * Number}); integers stay {@code Integer}, {@code Long} or {@code BigInteger}. Equal values still
 * hash alike: 1, 1.0, 1e0 and 10E-1 replay each other.
 *
 * <p>The transport's mapper is the one that reads the arguments, and the gate cannot see it; so a
 * gated call checks what it receives: an argument that arrives as a {@code Double} or {@code Float}
 * was read by a mapper that rounds decimals ({@code 1250.0000000000000001} arrives as {@code
 * 1250.0}), and the call is refused as {@code arguments_invalid} unless the gate was built with
 * {@link McpGate.Builder#acceptInexactNumbers()}.
 */
public final class ExactNumbers {
  private static final Logger LOG = LoggerFactory.getLogger(ExactNumbers.class);
  private static final String JACKSON2 =
      "io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper";
  private static final String JACKSON3 =
      "io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper";

  private ExactNumbers() {}

  /**
   * @return a mapper of the SDK's Jackson line on the class path (2 or 3), set up as the SDK's
   *     default one but reading decimals as {@link java.math.BigDecimal}
   * @throws IllegalStateException when the SDK's JSON module is neither of its Jackson modules
   */
  public static McpJsonMapper jsonMapper() {
    String line = sdkDefault().getClass().getName();
    return switch (line) {
      case JACKSON2 -> Jackson2ExactMapper.create();
      case JACKSON3 -> Jackson3ExactMapper.create();
      default ->
          throw new IllegalStateException(
              "the SDK's JSON mapper is "
                  + line
                  + "; exact"
                  + " numbers are provided for its Jackson 2 and Jackson 3 modules only: configure"
                  + " yours to read decimals exactly");
    };
  }

  /**
   * @return {@code mapper} when it reads decimals exactly, else the exact mapper of the SDK's
   *     Jackson line; {@code mapper} when the SDK's JSON module is neither of its Jackson modules
   */
  static McpJsonMapper forResults(McpJsonMapper mapper) {
    if (readsExactly(mapper)) {
      return mapper;
    }
    String line = mapper.getClass().getName();
    return line.equals(JACKSON2) || line.equals(JACKSON3) ? jsonMapper() : mapper;
  }

  /**
   * The builder's check of the gate's mapper: an error when exact numbers are required and it reads
   * decimals as {@code double}, else a warning saying what follows.
   *
   * @return {@code mapper}
   * @throws IllegalStateException if {@code require} and the mapper reads decimals inexactly
   */
  static McpJsonMapper checked(McpJsonMapper mapper, boolean require, boolean accept) {
    if (readsExactly(mapper)) {
      return mapper;
    }
    String name = mapper.getClass().getName();
    if (require) {
      throw new IllegalStateException(
          "the JSON mapper "
              + name
              + " reads decimals as double, which no hash can tell apart from nearby numbers"
              + " (9007199254740993.0 and 9007199254740992.0 arrive alike), and exact numbers are"
              + " required (requireExactNumbers()); give the server's transport, the server and"
              + " the gate ExactNumbers.jsonMapper()");
    }
    if (accept) {
      LOG.warn(
          "the JSON mapper {} reads decimals as double and acceptInexactNumbers() is set:"
              + " arguments such as 1250.0000000000000001 and 1250 hash alike, and one call"
              + " replays the other's result",
          name);
    } else {
      LOG.warn(
          "the JSON mapper {} reads decimals as double: a gated call with a decimal argument"
              + " will be refused (arguments_invalid) rather than hashed inexactly. Give the"
              + " server's transport, the server and the gate ExactNumbers.jsonMapper(); tools"
              + " that take only whole numbers are not affected"
              + " (McpGate.Builder.requireExactNumbers() makes this an error)",
          name);
    }
    return mapper;
  }

  /**
   * @return the SDK's default mapper
   * @throws IllegalStateException naming the artifacts to add when no JSON module of the SDK is on
   *     the class path ({@code mcp-core} alone has none)
   */
  static McpJsonMapper sdkDefault() {
    try {
      return McpJsonDefaults.getMapper();
    } catch (ServiceConfigurationError | RuntimeException e) {
      throw new IllegalStateException(
          "no JSON module of the MCP SDK is on the class path (mcp-core has none): add the"
              + " dependency io.modelcontextprotocol.sdk:mcp-json-jackson2 or mcp-json-jackson3 (or"
              + " the SDK's io.modelcontextprotocol.sdk:mcp, which brings one)",
          e);
    }
  }

  /**
   * Deeper than this, the argument hash refuses the arguments anyway; the scan stops there, so that
   * it needs no more stack than the hash.
   */
  private static final int MAX_DEPTH = CanonicalJson.MAX_DEPTH;

  /**
   * Where a mapper that reads decimals as {@code double} left its mark: the JSON path of the first
   * finite {@code Double} or {@code Float} among the values (NaN and the infinities are left to the
   * argument hash, which refuses them). A {@code double} does not say which text it was read from:
   * {@code 1250.0} may have been {@code 1250.0000000000000001}, so none can be trusted.
   *
   * @param arguments a call's arguments
   * @return the path ({@code $.amount_cents}, {@code $.items[2].price}), or null when there is none
   */
  static String inexactNumberPath(Map<String, Object> arguments) {
    return inexactNumberPath(arguments, java.util.Set.of());
  }

  /**
   * Like {@link #inexactNumberPath(Map)}, leaving out the top-level arguments the hash ignores (a
   * {@code double} there cannot make two calls hash alike).
   *
   * @param ignored the names of the top-level arguments the gate's policy leaves out of the hash
   */
  static String inexactNumberPath(Map<String, Object> arguments, java.util.Set<String> ignored) {
    java.util.ArrayDeque<Object> path = new java.util.ArrayDeque<>();
    boolean found = false;
    for (Map.Entry<String, Object> e : arguments.entrySet()) {
      if (!ignored.contains(e.getKey()) && find(e.getValue(), path, 1)) {
        path.push(e.getKey());
        found = true;
        break;
      }
    }
    if (!found) {
      return null;
    }
    StringBuilder out = new StringBuilder("$");
    for (Object step : path) {
      out.append(
          step instanceof Integer i ? "[" + i + "]" : CanonicalJson.pathSegment((String) step));
    }
    return out.toString();
  }

  /**
   * @return whether {@code value} holds one; its path is pushed on the way back
   */
  private static boolean find(Object value, java.util.ArrayDeque<Object> path, int depth) {
    if (depth > MAX_DEPTH) {
      return false;
    }
    if (value instanceof Double d) {
      return Double.isFinite(d);
    }
    if (value instanceof Float f) {
      return Float.isFinite(f);
    }
    if (value instanceof Map<?, ?> map) {
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (find(e.getValue(), path, depth + 1)) {
          path.push(String.valueOf(e.getKey()));
          return true;
        }
      }
    } else if (value instanceof List<?> list) {
      int i = 0;
      for (Object item : list) {
        if (find(item, path, depth + 1)) {
          path.push(i);
          return true;
        }
        i++;
      }
    } else if (value instanceof Object[] array) {
      for (int i = 0; i < array.length; i++) {
        if (find(array[i], path, depth + 1)) {
          path.push(i);
          return true;
        }
      }
    }
    return false;
  }

  /**
   * @param mapper a JSON mapper
   * @return true when it reads 9007199254740993.0 and 9007199254740992.0 as different values
   */
  public static boolean readsExactly(McpJsonMapper mapper) {
    try {
      return !canonical(mapper, "9007199254740993.0")
          .equals(canonical(mapper, "9007199254740992.0"));
    } catch (IOException e) {
      throw new IllegalStateException("the JSON mapper cannot read a number", e);
    }
  }

  private static String canonical(McpJsonMapper mapper, String number) throws IOException {
    return CanonicalJson.toCanonicalString(mapper.readValue("{\"n\":" + number + "}", Map.class));
  }
}
