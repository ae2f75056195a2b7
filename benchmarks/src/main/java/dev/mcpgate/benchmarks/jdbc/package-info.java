/**
 * A JDBC throughput harness: MCP Gate's JDBC store beside a raw SQL floor and its peers (Apache
 * Camel, Spring Integration), in one run on one database. See {@code docs/performance.md}.
 */
package dev.mcpgate.benchmarks.jdbc;
