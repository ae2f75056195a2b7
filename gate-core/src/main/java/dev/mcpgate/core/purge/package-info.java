/** Purging the rows of expired claims on a schedule: {@link dev.mcpgate.core.purge.ClaimPurger}. */
package dev.mcpgate.core.purge;
