package dev.mcpgate.dynamodb;

import dev.mcpgate.core.StoreUnavailableException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.SdkPlugin;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;

/**
 * Sends requests to one table and turns the SDK's failures into the gate's: a missing table or any
 * service error (after the SDK's own retries) is a {@link StoreUnavailableException}; a failed
 * condition is passed on for the caller to read as "the token no longer holds".
 */
final class Requests {
  final DynamoDbClient client;
  final String table;
  private final Duration clientTimeout; // the client's own API call timeout, if it has one

  Requests(DynamoDbClient client, String table) {
    this.client = client;
    this.table = table;
    this.clientTimeout = apiCallTimeout(client);
  }

  private static Duration apiCallTimeout(DynamoDbClient client) {
    try {
      return client
          .serviceClientConfiguration()
          .overrideConfiguration()
          .apiCallTimeout()
          .orElse(null);
    } catch (RuntimeException notTold) {
      return null; // a client that does not say (a test double, say): the request's bound alone
    }
  }

  /**
   * @return the API call timeout for a request that must end within {@code within}: that, or the
   *     client's own when shorter; at least 1 ms, since the SDK counts whole milliseconds and takes
   *     0 for no timeout at all
   */
  private Duration bounded(Duration within) {
    Duration bound =
        clientTimeout != null && clientTimeout.compareTo(within) < 0 ? clientTimeout : within;
    return bound.compareTo(ONE_MS) < 0 ? ONE_MS : bound;
  }

  private static final Duration ONE_MS = Duration.ofMillis(1);

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
    return get(key, what, true);
  }

  /**
   * @param retried false for one try, without the SDK's retries
   * @return the item, read strongly consistent, or null when there is none
   */
  Map<String, AttributeValue> get(Map<String, AttributeValue> key, String what, boolean retried) {
    GetItemRequest.Builder get = GetItemRequest.builder().tableName(table).key(key);
    if (!retried) {
      get.overrideConfiguration(o -> o.addPlugin(ONE_TRY));
    }
    Map<String, AttributeValue> item =
        call(what, () -> client.getItem(get.consistentRead(true).build())).item();
    return item == null || item.isEmpty() ? null : item;
  }

  /** A request's configuration without the SDK's retries. */
  private static final SdkPlugin ONE_TRY =
      config -> config.overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()));

  /**
   * A strongly consistent GetItem that ends within {@code within}: its SDK API call timeout (which
   * bounds connecting, retries and reading) is that, or the client's own when shorter.
   *
   * @return the item, or null when there is none
   */
  Map<String, AttributeValue> getWithin(
      Map<String, AttributeValue> key, String what, Duration within) {
    Duration timeout = bounded(within);
    Map<String, AttributeValue> item =
        call(
                what,
                () ->
                    client.getItem(
                        g ->
                            g.tableName(table)
                                .key(key)
                                .consistentRead(true)
                                .overrideConfiguration(o -> o.apiCallTimeout(timeout))))
            .item();
    return item == null || item.isEmpty() ? null : item;
  }

  /**
   * What a conditional write did: written, or not, with the item as it was when the server returns
   * it on a failed condition ({@code ReturnValuesOnConditionCheckFailure=ALL_OLD}; null where it
   * does not, and where there was no item).
   */
  record Written(boolean written, Map<String, AttributeValue> old) {}

  /**
   * A conditional UpdateItem that ends within {@code within} (its SDK API call timeout, or the
   * client's own when shorter) and asks for the old item on a failed condition.
   */
  Written updateWithin(
      Map<String, AttributeValue> key,
      Expression e,
      String update,
      String condition,
      String what,
      Duration within) {
    Duration timeout = bounded(within);
    try {
      call(
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
                          .returnValuesOnConditionCheckFailure(
                              ReturnValuesOnConditionCheckFailure.ALL_OLD)
                          .overrideConfiguration(o -> o.apiCallTimeout(timeout))));
      return new Written(true, null);
    } catch (ConditionalCheckFailedException failed) {
      return new Written(
          false, failed.hasItem() && !failed.item().isEmpty() ? failed.item() : null);
    }
  }

  /** A conditional DeleteItem; false when the condition failed. */
  boolean delete(Map<String, AttributeValue> key, Expression e, String condition, String what) {
    return deleteTried(key, e, condition, what) == Outcome.WRITTEN;
  }

  /**
   * What a conditional write did: written; refused; or refused on a retry of the SDK's own, after a
   * try whose answer was lost (a connection cut after the server applied it) may have written.
   */
  enum Outcome {
    WRITTEN,
    REFUSED,
    REFUSED_ON_RETRY
  }

  private static Outcome refused(ConditionalCheckFailedException failed) {
    Integer attempts = failed.numAttempts();
    return attempts != null && attempts > 1 ? Outcome.REFUSED_ON_RETRY : Outcome.REFUSED;
  }

  /** A conditional UpdateItem that tells a refusal on the SDK's retry apart. */
  Outcome updateTried(
      Map<String, AttributeValue> key, Expression e, String update, String condition, String what) {
    try {
      call(
          what,
          () ->
              client.updateItem(
                  u ->
                      u.tableName(table)
                          .key(key)
                          .updateExpression(update)
                          .conditionExpression(condition)
                          .expressionAttributeNames(e.names())
                          .expressionAttributeValues(e.values())));
      return Outcome.WRITTEN;
    } catch (ConditionalCheckFailedException failed) {
      return refused(failed);
    }
  }

  /** A conditional DeleteItem that tells a refusal on the SDK's retry apart. */
  Outcome deleteTried(
      Map<String, AttributeValue> key, Expression e, String condition, String what) {
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
      return Outcome.WRITTEN;
    } catch (ConditionalCheckFailedException failed) {
      return refused(failed);
    }
  }

  /** Whether the SDK tried before the last try: an earlier one may have landed, whatever it met. */
  static boolean earlierTries(Throwable e) {
    return e instanceof SdkException sdk && sdk.numAttempts() != null && sdk.numAttempts() > 1;
  }

  /** Whether the last try of a write that failed with {@code e} may have been applied. */
  static boolean mayHaveLanded(Throwable e) {
    if (e instanceof SdkServiceException service) {
      return service.statusCode() >= 500; // DynamoDB: a 5xx write may or may not have happened
    }
    return e instanceof SdkClientException && !neverSent(e);
  }

  /**
   * Whether the last try of a request that failed with {@code e} reached no server: no address, a
   * connection refused, or one that was not made in time (the HTTP clients' connect timeouts).
   */
  static boolean neverSent(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ConnectException
          || t instanceof UnknownHostException
          || t instanceof NoRouteToHostException
          || t instanceof HttpConnectTimeoutException
          || t.getClass().getSimpleName().equals("ConnectTimeoutException")) {
        return true; // Apache's (4 and 5) ConnectTimeoutException, by name: no dependency on it
      }
    }
    return false;
  }
}
