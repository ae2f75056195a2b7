package dev.mcpgate.mcp;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/** The Jackson 3 exact mapper; loaded only on a Jackson 3 server. */
final class Jackson3ExactMapper {
  private Jackson3ExactMapper() {}

  static McpJsonMapper create() {
    return new JacksonMcpJsonMapper(
        JsonMapper.builder().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build());
  }
}
