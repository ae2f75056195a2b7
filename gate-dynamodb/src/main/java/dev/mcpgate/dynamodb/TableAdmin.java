package dev.mcpgate.dynamodb;

import static dev.mcpgate.dynamodb.ClaimItems.n;

import dev.mcpgate.core.StoreUnavailableException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;

/** The table's administration: creating it (with TTL), and purging expired items by a Scan. */
final class TableAdmin {
  private static final Logger LOG = LoggerFactory.getLogger(DynamoDbIdempotencyStore.class);

  private final Requests requests;
  private final ClaimItems items;

  TableAdmin(Requests requests, ClaimItems items) {
    this.requests = requests;
    this.items = items;
  }

  /** Creates the table on demand billing, waits until it is active, and enables TTL. */
  void createTableIfMissing() {
    String table = requests.table;
    List<KeySchemaElement> keys = new ArrayList<>();
    List<AttributeDefinition> attributes = new ArrayList<>();
    keys.add(
        KeySchemaElement.builder().attributeName(items.partitionKey).keyType(KeyType.HASH).build());
    attributes.add(
        AttributeDefinition.builder()
            .attributeName(items.partitionKey)
            .attributeType(ScalarAttributeType.S)
            .build());
    if (items.sortKey != null) {
      keys.add(
          KeySchemaElement.builder().attributeName(items.sortKey).keyType(KeyType.RANGE).build());
      attributes.add(
          AttributeDefinition.builder()
              .attributeName(items.sortKey)
              .attributeType(ScalarAttributeType.S)
              .build());
    }
    try {
      requests.client.createTable(
          CreateTableRequest.builder()
              .tableName(table)
              .keySchema(keys)
              .attributeDefinitions(attributes)
              .billingMode(BillingMode.PAY_PER_REQUEST)
              .build());
    } catch (ResourceInUseException exists) {
      // already there
    } catch (SdkException e) {
      throw new StoreUnavailableException(
          "could not create DynamoDB table " + table + ": " + e.getMessage(), e);
    }
    requests.call(
        "wait for table " + table,
        () -> requests.client.waiter().waitUntilTableExists(w -> w.tableName(table)));
    try {
      requests.client.updateTimeToLive(
          u ->
              u.tableName(table)
                  .timeToLiveSpecification(t -> t.attributeName(items.ttlAttribute).enabled(true)));
    } catch (DynamoDbException e) {
      String message = e.getMessage() == null ? "" : e.getMessage();
      if (!message.contains("already enabled")) {
        LOG.warn(
            "could not enable TTL on DynamoDB table {} ({}); expired items stay until"
                + " purgeExpired removes them",
            table,
            message);
      }
    }
  }

  /**
   * Deletes at most {@code limit} of this store's items that expired at or before {@code cutoffMs}.
   * The Scan's filter and each delete's condition both require the item to be one of the store's
   * own (a shared table's other items, even with an {@code expires_at} of their own, are never
   * touched) and still expired (an item claimed again since the Scan read it stays).
   *
   * @throws IllegalArgumentException if {@code limit} is below 1
   */
  int purgeExpired(int limit, long cutoffMs) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, was " + limit);
    }
    int deleted = 0;
    Map<String, AttributeValue> start = null;
    do {
      Map<String, AttributeValue> from = start;
      Expression filter = new Expression();
      String expired =
          filter.name(ClaimItems.EXPIRES)
              + " <= "
              + filter.value(n(cutoffMs))
              + " AND "
              + items.ownItem(filter);
      ScanResponse page =
          requests.call(
              "scan for expired items",
              () ->
                  requests.client.scan(
                      ScanRequest.builder()
                          .tableName(requests.table)
                          .filterExpression(expired)
                          .expressionAttributeNames(filter.names())
                          .expressionAttributeValues(filter.values())
                          .exclusiveStartKey(from)
                          .build()));
      for (Map<String, AttributeValue> item : page.items()) {
        if (deleted >= limit) {
          return deleted;
        }
        Expression e = new Expression();
        String stillExpired =
            e.name(ClaimItems.EXPIRES) + " <= " + e.value(n(cutoffMs)) + " AND " + items.ownItem(e);
        if (requests.delete(items.keyOf(item), e, stillExpired, "purge")) {
          deleted++;
        }
      }
      start =
          page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty()
              ? page.lastEvaluatedKey()
              : null;
    } while (start != null && deleted < limit);
    return deleted;
  }
}
