package dev.mcpgate.mcp;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;

/** The Jackson 2 exact mapper; loaded only on a Jackson 2 server. */
final class Jackson2ExactMapper {
  private Jackson2ExactMapper() {}

  static McpJsonMapper create() {
    return new JacksonMcpJsonMapper(
        new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS));
  }
}
