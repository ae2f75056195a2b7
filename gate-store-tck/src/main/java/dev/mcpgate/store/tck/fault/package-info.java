/**
 * A TCP fault proxy for store tests: put a {@link dev.mcpgate.store.tck.fault.FaultProxy} between a
 * store and its real server (PostgreSQL, MariaDB, Redis, a DynamoDB-API server) and break the
 * connections on purpose, one by one or all at once, to see what the store does when a lease
 * renewal meets a black hole, a reset, a stall or a server that takes no new connections.
 *
 * <pre>
 * try (FaultProxy proxy = FaultProxy.to("jdbc:postgresql://127.0.0.1:5432/gate")) {
 *   DataSource ds = dataSource(proxy.relayedJdbcUrl("jdbc:postgresql://127.0.0.1:5432/gate"));
 *   ... // open a connection, let the store claim a key
 *   proxy.links().get(0).blackhole(); // the server no longer answers, the socket stays open
 *   ...
 * }
 * </pre>
 *
 * <p>Each accepted connection is a {@link dev.mcpgate.store.tck.fault.Link}; its {@link
 * dev.mcpgate.store.tck.fault.Link#upstreamLocalPort()} names the server-side session (PostgreSQL's
 * {@code pg_stat_activity.client_port}, the port in Redis's {@code CLIENT LIST} addr, MariaDB's
 * processlist host {@code 127.0.0.1:port}). The proxy uses the JDK only; its threads are daemons
 * whose names start with {@link dev.mcpgate.store.tck.fault.FaultProxy#threadNamePrefix()}.
 */
package dev.mcpgate.store.tck.fault;
