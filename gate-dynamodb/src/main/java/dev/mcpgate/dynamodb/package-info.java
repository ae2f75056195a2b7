/**
 * The DynamoDB store: {@link dev.mcpgate.dynamodb.DynamoDbIdempotencyStore}, on conditional writes
 * with the AWS SDK v2.
 */
package dev.mcpgate.dynamodb;
