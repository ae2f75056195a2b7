package dev.mcpgate.dynamodb;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.ResultTooLargeException;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.StoredResult;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The item codec: how a claim row is laid out as a DynamoDB item (attribute names, the key of an
 * item, the completion's update with its optional gzip of results) and read back.
 */
final class ClaimItems {
  static final String TENANT = "tenant";
  static final String TOOL = "tool";
  static final String KEY = "idem_key";
  static final String HASH = "args_hash";
  static final String STATE = "state";
  static final String TOKEN = "lease_token";
  static final String ATTEMPT = "attempt";
  static final String CREATED = "created_at";
  static final String LEASE = "lease_expires_at";
  static final String EXPIRES = "expires_at";
  static final String COMPLETED = "completed_at";
  static final String KIND = "result_kind";
  static final String RESULT = "result";
  static final String ENCODING = "result_encoding";
  static final String GZIP = "gzip";

  /** The attributes the store writes itself: no key or TTL attribute may take one of them. */
  static final Set<String> OWN_ATTRIBUTES =
      Set.of(
          TENANT, TOOL, KEY, HASH, STATE, TOKEN, ATTEMPT, CREATED, LEASE, EXPIRES, COMPLETED, KIND,
          RESULT, ENCODING);

  /** The largest stored result (after compression) that fits an item with room to spare. */
  static final int MAX_RESULT_BYTES = 350_000;

  private static final int COMPRESS_OVER = 1024;
  private static final int MAX_PARTITION_BYTES = 2048;

  final String partitionKey;
  final String sortKey;
  final String ttlAttribute;
  private final String partitionPrefix;
  private final String sortKeyValue;
  private final boolean compress;
  private final long marginMs;

  ClaimItems(
      String partitionKey,
      String partitionPrefix,
      String sortKey,
      String sortKeyValue,
      String ttlAttribute,
      boolean compress,
      long marginMs) {
    this.partitionKey = partitionKey;
    this.partitionPrefix = partitionPrefix;
    this.sortKey = sortKey;
    this.sortKeyValue = sortKeyValue;
    this.ttlAttribute = ttlAttribute;
    this.compress = compress;
    this.marginMs = marginMs;
  }

  /**
   * @return the partition key value: tenant and tool length-prefixed, so that no two identities
   *     share one; past DynamoDB's 2,048 bytes for a partition key (three parts of 255 characters
   *     outside the BMP are 3,060), the prefix and a SHA-256 of that value instead
   */
  String partitionValue(ClaimId id) {
    String value =
        partitionPrefix
            + id.tenant().length()
            + ":"
            + id.tenant()
            + "|"
            + id.tool().length()
            + ":"
            + id.tool()
            + "|"
            + id.key();
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    if (bytes.length <= MAX_PARTITION_BYTES) {
      return value;
    }
    try {
      return partitionPrefix
          + "sha256:"
          + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * @return the item key of a claim
   */
  Map<String, AttributeValue> key(ClaimId id) {
    Map<String, AttributeValue> key = new HashMap<>();
    key.put(partitionKey, s(partitionValue(id)));
    if (sortKey != null) {
      key.put(sortKey, s(sortKeyValue));
    }
    return key;
  }

  /**
   * @return the item key of an item read from the table
   */
  Map<String, AttributeValue> keyOf(Map<String, AttributeValue> item) {
    Map<String, AttributeValue> key = new HashMap<>();
    key.put(partitionKey, item.get(partitionKey));
    if (sortKey != null) {
      key.put(sortKey, item.get(sortKey));
    }
    return key;
  }

  /**
   * @return the item of a new in-progress claim, attempt 1, claimed at {@code nowMs}
   */
  Map<String, AttributeValue> newClaim(ClaimRequest r, long nowMs) {
    Map<String, AttributeValue> item = key(r.id());
    item.put(TENANT, s(r.id().tenant()));
    item.put(TOOL, s(r.id().tool()));
    item.put(KEY, s(r.id().key()));
    item.put(HASH, s(r.argsHash()));
    item.put(STATE, s(ClaimState.IN_PROGRESS.name()));
    item.put(TOKEN, s(r.token().value()));
    item.put(ATTEMPT, n(1));
    item.put(CREATED, n(nowMs));
    item.put(LEASE, n(nowMs + r.lease().toMillis()));
    long expires = nowMs + r.retention().toMillis();
    item.put(EXPIRES, n(expires));
    item.put(ttlAttribute, n(ttlSeconds(expires)));
    return item;
  }

  /**
   * The update expression that takes over an item for a claim: every field of a new in-progress
   * claim, with the given attempt, and the completed result's fields removed.
   */
  String takeover(Expression e, ClaimRequest r, int attempt, long nowMs) {
    long expires = nowMs + r.retention().toMillis();
    return "SET "
        + String.join(
            ", ",
            List.of(
                e.equals(HASH, s(r.argsHash())), e.equals(STATE, s(ClaimState.IN_PROGRESS.name())),
                e.equals(TOKEN, s(r.token().value())), e.equals(ATTEMPT, n(attempt)),
                e.equals(CREATED, n(nowMs)), e.equals(LEASE, n(nowMs + r.lease().toMillis())),
                e.equals(EXPIRES, n(expires)), e.equals(ttlAttribute, n(ttlSeconds(expires)))))
        + " REMOVE "
        + String.join(
            ", ", List.of(e.name(COMPLETED), e.name(KIND), e.name(RESULT), e.name(ENCODING)));
  }

  /**
   * A condition that holds only for this store's own items, in a table it may share (a single-table
   * layout): the attributes only a claim has, the partition key prefix, and the claims' sort key
   * value.
   */
  String ownItem(Expression e) {
    StringBuilder c =
        new StringBuilder(
            "attribute_exists("
                + e.name(TOKEN)
                + ") AND attribute_exists("
                + e.name(HASH)
                + ") AND attribute_exists("
                + e.name(ATTEMPT)
                + ") AND attribute_exists("
                + e.name(STATE)
                + ")");
    if (!partitionPrefix.isEmpty()) {
      c.append(" AND begins_with(")
          .append(e.name(partitionKey))
          .append(", ")
          .append(e.value(s(partitionPrefix)))
          .append(")");
    }
    if (sortKey != null) {
      c.append(" AND ").append(e.equals(sortKey, s(sortKeyValue)));
    }
    return c.toString();
  }

  /**
   * @return the row an item holds
   */
  /**
   * The builder's attribute names: the key attributes differ, and no attribute it names is one the
   * store writes itself (its value would be overwritten: a TTL named {@code expires_at} would
   * expire every claim at once).
   *
   * @param sortKey the sort key attribute, or null
   * @throws IllegalArgumentException naming the attribute that collides
   */
  static void checkAttributes(String partitionKey, String sortKey, String ttlAttribute) {
    if (sortKey != null && sortKey.equals(partitionKey)) {
      throw new IllegalArgumentException(
          "sort key attribute \"" + sortKey + "\" must differ from the partition key attribute");
    }
    notOwn(partitionKey, "partition key");
    if (sortKey != null) {
      notOwn(sortKey, "sort key");
    }
    notOwn(ttlAttribute, "TTL");
    if (ttlAttribute.equals(partitionKey) || ttlAttribute.equals(sortKey)) {
      throw new IllegalArgumentException(
          "TTL attribute \"" + ttlAttribute + "\" must differ from the key attributes");
    }
  }

  private static void notOwn(String attribute, String what) {
    if (OWN_ATTRIBUTES.contains(attribute)) {
      throw new IllegalArgumentException(
          what
              + " attribute \""
              + attribute
              + "\" is one of the attributes the store writes itself "
              + new TreeSet<>(OWN_ATTRIBUTES)
              + ": name another");
    }
  }

  /**
   * @return the claim of {@code id} in {@code item}, read where {@code id}'s key led
   * @throws IllegalStateException when the item holds another identity's claim: two stores share
   *     the table with partition key prefixes that overlap, and nothing of the other's is used
   */
  ClaimRecord readOf(ClaimId id, Map<String, AttributeValue> item) {
    ClaimRecord row = read(item);
    if (!row.id().equals(id)) {
      throw new IllegalStateException(
          "the item at partition key \""
              + partitionValue(id)
              + "\" holds the claim of "
              + row.id()
              + ", not of "
              + id
              + ": another store writes this table with a partition key prefix that begins"
              + " with this store's (\""
              + partitionPrefix
              + "\") or this one's with it; give each store a prefix that is not the start of"
              + " another's (end each with a character such as '#'). Nothing was claimed or"
              + " replayed");
    }
    return row;
  }

  ClaimRecord read(Map<String, AttributeValue> item) {
    ClaimState state = ClaimState.valueOf(item.get(STATE).s());
    StoredResult result = null;
    if (state == ClaimState.COMPLETED && item.containsKey(KIND)) {
      byte[] body = item.containsKey(RESULT) ? item.get(RESULT).b().asByteArray() : new byte[0];
      if (item.containsKey(ENCODING) && GZIP.equals(item.get(ENCODING).s())) {
        body = gunzip(body);
      }
      result = new StoredResult(StoredResult.Kind.valueOf(item.get(KIND).s()), body);
    }
    return new ClaimRecord(
        new ClaimId(item.get(TENANT).s(), item.get(TOOL).s(), item.get(KEY).s()),
        item.get(HASH).s(),
        state,
        new LeaseToken(item.get(TOKEN).s()),
        Integer.parseInt(item.get(ATTEMPT).n()),
        Instant.ofEpochMilli(number(item, CREATED)),
        Instant.ofEpochMilli(number(item, LEASE)),
        Instant.ofEpochMilli(number(item, EXPIRES)),
        state == ClaimState.COMPLETED && item.containsKey(COMPLETED)
            ? Instant.ofEpochMilli(number(item, COMPLETED))
            : null,
        result);
  }

  /**
   * The update expression that completes a claim: state, completion time, new expiry (and TTL), and
   * the result, gzipped when configured and large enough.
   *
   * @throws ResultTooLargeException if the (compressed) result does not fit in an item
   */
  String completion(Expression e, ClaimId id, StoredResult result, long nowMs, Duration retention) {
    byte[] body = result.body();
    boolean gzip = false;
    if (compress && body.length > COMPRESS_OVER) {
      byte[] compressed = gzip(body);
      if (compressed.length < body.length) { // else stored as it is: gzip only adds its framing
        body = compressed;
        gzip = true;
      }
    }
    if (body.length > MAX_RESULT_BYTES) {
      throw new ResultTooLargeException(
          "the result of "
              + id
              + " is "
              + body.length
              + " bytes"
              + (gzip ? " compressed" : "")
              + ", over the "
              + MAX_RESULT_BYTES
              + " bytes that fit in a DynamoDB item (400 KB at most)",
          body.length,
          MAX_RESULT_BYTES);
    }
    long expires = nowMs + retention.toMillis();
    List<String> set =
        new ArrayList<>(
            List.of(
                e.equals(STATE, s(ClaimState.COMPLETED.name())),
                e.equals(COMPLETED, n(nowMs)),
                e.equals(EXPIRES, n(expires)),
                e.equals(ttlAttribute, n(ttlSeconds(expires))),
                e.equals(KIND, s(result.kind().name()))));
    List<String> remove = new ArrayList<>();
    if (body.length > 0) {
      set.add(
          e.equals(RESULT, AttributeValue.builder().b(SdkBytes.fromByteArrayUnsafe(body)).build()));
    } else {
      remove.add(e.name(RESULT));
    }
    if (gzip) {
      set.add(e.equals(ENCODING, s(GZIP)));
    } else {
      remove.add(e.name(ENCODING));
    }
    return "SET "
        + String.join(", ", set)
        + (remove.isEmpty() ? "" : " REMOVE " + String.join(", ", remove));
  }

  static long number(Map<String, AttributeValue> item, String attribute) {
    return Long.parseLong(item.get(attribute).n());
  }

  static AttributeValue s(String value) {
    return AttributeValue.builder().s(value).build();
  }

  static AttributeValue n(long value) {
    return AttributeValue.builder().n(Long.toString(value)).build();
  }

  /**
   * @return the epoch second, for DynamoDB's TTL, at or after the safety margin past {@code
   *     expiresAtMs}: an item DynamoDB deletes is one that no claim's condition still counts alive
   *     (a takeover's condition waits out the margin; a deletion would let a put through at once)
   */
  long ttlSeconds(long expiresAtMs) {
    if (marginMs > Long.MAX_VALUE - 999 - expiresAtMs) {
      return Long.MAX_VALUE / 1000; // a margin to the end of time: the last second, no wrap
    }
    return Math.floorDiv(expiresAtMs + marginMs + 999, 1000);
  }

  private static byte[] gzip(byte[] body) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(body.length / 2 + 64);
    try (GZIPOutputStream z = new GZIPOutputStream(out)) {
      z.write(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  private static byte[] gunzip(byte[] body) {
    try (GZIPInputStream z = new GZIPInputStream(new ByteArrayInputStream(body))) {
      return z.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("stored result is not valid gzip", e);
    }
  }
}
