package dev.mcpgate.dynamodb;

import dev.mcpgate.core.StoreUnavailableException;
import java.util.Map;
import java.util.function.Supplier;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;

/**
 * Sends requests to one table and turns the SDK's failures into the gate's: a missing table or any
 * service error (after the SDK's own retries) is a {@link StoreUnavailableException}; a failed
 * condition is passed on for the caller to read as "the token no longer holds".
 */
final class Requests {
  final DynamoDbClient client;
  final String table;

  Requests(DynamoDbClient client, String table) {
    this.client = client;
    this.table = table;
  }

  <T> T call(String what, Supplier<T> request) {
    try {
      return request.get();
    } catch (ResourceNotFoundException e) {
      throw new StoreUnavailableException(
          "DynamoDB table "
              + table
              + " does not exist ("
              + e.getMessage()
              + "); create it with the builder's createSchemaIfMissing(true) or as docs/stores.md"
              + " shows",
          e);
    } catch (ConditionalCheckFailedException e) {
      throw e;
    } catch (SdkException e) {
      throw new StoreUnavailableException(
          "could not " + what + " in DynamoDB table " + table + ": " + e.getMessage(), e);
    }
  }

  /**
   * @return the item, read strongly consistent, or null when there is none
   */
  Map<String, AttributeValue> get(Map<String, AttributeValue> key, String what) {
    Map<String, AttributeValue> item =
        call(what, () -> client.getItem(g -> g.tableName(table).key(key).consistentRead(true)))
            .item();
    return item == null || item.isEmpty() ? null : item;
  }

  /**
   * A conditional UpdateItem.
   *
   * @return the item after the update, or null when the condition failed
   */
  Map<String, AttributeValue> update(
      Map<String, AttributeValue> key, Expression e, String update, String condition, String what) {
    try {
      return call(
              what,
              () ->
                  client.updateItem(
                      u ->
                          u.tableName(table)
                              .key(key)
                              .updateExpression(update)
                              .conditionExpression(condition)
                              .expressionAttributeNames(e.names())
                              .expressionAttributeValues(e.values())
                              .returnValues(ReturnValue.ALL_NEW)))
          .attributes();
    } catch (ConditionalCheckFailedException failed) {
      return null;
    }
  }

  /** A conditional DeleteItem; false when the condition failed. */
  boolean delete(Map<String, AttributeValue> key, Expression e, String condition, String what) {
    try {
      call(
          what,
          () ->
              client.deleteItem(
                  d ->
                      d.tableName(table)
                          .key(key)
                          .conditionExpression(condition)
                          .expressionAttributeNames(e.names())
                          .expressionAttributeValues(e.values())));
      return true;
    } catch (ConditionalCheckFailedException failed) {
      return false;
    }
  }
}
