package dev.mcpgate.examples.spring;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring AI MCP server over Streamable HTTP ({@code http://localhost:8080/mcp}) whose write tools
 * are gated by the MCP Gate starter: see {@link RefundTools} and {@code application.properties}.
 * Nothing else wires the gate.
 */
@SpringBootApplication
public class RefundsApplication {
  public static void main(String[] args) {
    SpringApplication.run(RefundsApplication.class, args);
  }
}
