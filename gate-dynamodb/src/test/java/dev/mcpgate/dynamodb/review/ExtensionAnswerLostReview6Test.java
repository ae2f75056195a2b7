package dev.mcpgate.dynamodb.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.dynamodb.DynamoDbIdempotencyStore;
import dev.mcpgate.store.tck.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Review6 of 132513f ({@code LeaseWrites.setLease}/{@code setLeaseAndRaiseExpiry} now read {@code
 * updateTried(...) == WRITTEN}): an extension whose first try lands, its answer lost, and whose
 * retry is refused because of that very write, is still told held, by {@code extendLease} (its
 * third write) and by the renewals ({@code extendForward}'s read).
 */
class ExtensionAnswerLostReview6Test {
  private static final Duration LEASE = Duration.ofSeconds(1);

  @ParameterizedTest
  @CsvSource({
    // which: extendLease or renewal; raise: whether the new lease end passes the expiry
    "extendLease, false",
    "extendLease, true",
    "renewal, false",
    "renewal, true"
  })
  void aLandedExtensionWhoseAnswerWasLostIsHeld(String which, boolean raise) {
    MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));
    ClaimId id = new ClaimId("review6", "extend-lost", UUID.randomUUID().toString());
    ScriptedHttp http = new ScriptedHttp();
    DynamoDbClient client = ReviewDynamo.client(http);
    DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock);
    LeaseToken token = LeaseToken.random();
    Duration expiry = raise ? Duration.ofSeconds(2) : Duration.ofHours(1);
    ClaimAttempt claimed = store.claim(new ClaimRequest(id, "v1:a", token, LEASE, expiry));
    assertThat(claimed).isInstanceOf(ClaimAttempt.Acquired.class);
    Duration lease = Duration.ofMinutes(1);
    if (raise) {
      // setLease (extendLease) or the renewal's first write is refused (expiry before the end);
      // the raising write lands, its answer lost, and its retry is refused
      http.script("UpdateItem", ScriptedHttp.Fault.PASS, ScriptedHttp.Fault.LAND_LOSE);
    } else {
      http.script("UpdateItem", ScriptedHttp.Fault.LAND_LOSE);
    }
    boolean held;
    if (which.equals("extendLease")) {
      held = store.extendLease(id, token, lease);
    } else {
      ExtendedLeases r =
          store.extendLeases(List.of(new HeldLease(id, token)), lease, Duration.ofSeconds(20));
      held = r.extended().contains(token);
    }
    long leaseEnd = store.find(id).orElseThrow().leaseExpiresAt().toEpochMilli();
    int landed = http.landed.get();
    store.close();
    client.close();
    assertThat(landed).isEqualTo(1);
    assertThat(leaseEnd).isEqualTo(clock.millis() + lease.toMillis());
    assertThat(held).as("the lease was extended and is held").isTrue();
  }
}
