package dev.mcpgate.mcp;

/** The JSON text that both Jackson lines' tree tests read, and its canonical form. */
final class JsonTreesContract {
  static final String JSON =
      "{\"b\":[1,2.50,{\"z\":null,\"y\":\"é\"}],\"a\":true,\"c\":12345678901234567890}";
  static final String CANONICAL =
      "{\"a\":true,\"b\":[1,2.5,{\"y\":\"é\",\"z\":null}],\"c\":1.234567890123456789E+19}";

  private JsonTreesContract() {}
}
