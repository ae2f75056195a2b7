/** Work in progress: see the open issues. */
package dev.mcpgate.dynamodb;
