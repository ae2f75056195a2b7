/**
 * The JDBC store: {@link dev.mcpgate.jdbc.JdbcIdempotencyStore} on PostgreSQL, MariaDB, MySQL and
 * H2, its {@linkplain dev.mcpgate.jdbc.JdbcDialect dialects} and their DDL, and a transaction scope
 * for exactly-once effects in the same database.
 */
package dev.mcpgate.jdbc;
