/**
 * Throughput harnesses: MCP Gate's JDBC store beside a raw SQL floor and its peers (Apache Camel,
 * Spring Integration), and its Redis store beside a raw Redis floor, each in one run on one server;
 * and the JDBC store's cost as its claims table grows ({@link
 * dev.mcpgate.benchmarks.throughput.GrowthThroughput}). See {@code docs/performance.md}.
 */
package dev.mcpgate.benchmarks.throughput;
