/** JMH benchmarks of the gate over the in-memory store and of the canonical argument hash. */
package dev.mcpgate.benchmarks;
