package dev.mcpgate.spring;

import dev.mcpgate.mcp.ExactNumbers;
import io.modelcontextprotocol.json.McpJsonMapper;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Spring AI's MCP server JSON mapper (the Jackson 3 {@code JsonMapper} bean {@code
 * mcpServerJsonMapper}, which its transports read the arguments with): whether it reads decimals
 * exactly, and, with {@code mcpgate.exact-numbers=true}, the same mapper made to read them as
 * {@code BigDecimal}.
 */
final class ServerJson {
  /** The bean Spring AI's {@code McpServerJsonMapperAutoConfiguration} makes. */
  static final String BEAN = "mcpServerJsonMapper";

  private static final Logger LOG = LoggerFactory.getLogger(ServerJson.class);
  private static final ClassLoader LOADER = ServerJson.class.getClassLoader();
  private static final boolean JACKSON3 =
      ClassUtils.isPresent("tools.jackson.databind.json.JsonMapper", LOADER)
          && ClassUtils.isPresent(
              "io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper", LOADER);

  private ServerJson() {}

  /**
   * @return Spring AI's mapper, made to read decimals exactly; anything else unchanged
   */
  static Object exact(Object bean) {
    return JACKSON3 ? Jackson3.exact(bean) : bean;
  }

  /**
   * @return whether Spring AI's server mapper reads decimals exactly; empty when there is none
   *     (another JSON line, or no Spring AI server)
   */
  static Optional<Boolean> serverReadsExactly(ListableBeanFactory beans) {
    if (!JACKSON3 || !beans.containsBean(BEAN)) {
      return Optional.empty();
    }
    return Jackson3.readsExactly(beans.getBean(BEAN));
  }

  /**
   * @return the mapper the gate keeps results with: one that reads numbers exactly (so the adapter
   *     has nothing to warn about; what reads the arguments is the server's mapper, which the
   *     startup survey checks); empty when the SDK's JSON module has none
   */
  static Optional<McpJsonMapper> gateMapper(ListableBeanFactory beans) {
    try {
      return Optional.of(ExactNumbers.jsonMapper());
    } catch (RuntimeException e) {
      LOG.debug("no exact JSON mapper for the gate's results: {}", e.toString());
      return Optional.empty();
    }
  }

  /** Loaded only with Jackson 3 and the SDK's Jackson 3 module. */
  private static final class Jackson3 {
    static Object exact(Object bean) {
      if (bean instanceof tools.jackson.databind.json.JsonMapper mapper) {
        return mapper
            .rebuild()
            .enable(tools.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .build();
      }
      return bean;
    }

    static Optional<Boolean> readsExactly(Object bean) {
      if (bean instanceof tools.jackson.databind.json.JsonMapper mapper) {
        return Optional.of(
            ExactNumbers.readsExactly(
                new io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper(mapper)));
      }
      return Optional.empty();
    }
  }
}
