/**
 * The audit trail: one {@link dev.mcpgate.core.audit.AuditRecord} per decision, given to an {@link
 * dev.mcpgate.core.audit.AuditSink}, with arguments kept as a {@link
 * dev.mcpgate.core.audit.Redaction} leaves them. The MCP adapter writes the records; the JDBC store
 * module has a table sink.
 */
package dev.mcpgate.core.audit;
