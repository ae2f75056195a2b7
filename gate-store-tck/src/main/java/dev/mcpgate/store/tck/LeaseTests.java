package dev.mcpgate.store.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ExtendedLeases;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Lease extension, renewal of many leases at once, and release: an extended lease is not taken
 * over, a renewal says which leases are still held, a released key is free for a fresh attempt.
 *
 * <p>Run as {@link IdempotencyStoreContract.Leases}, a nested group of the contract.
 */
abstract class LeaseTests extends ContractGroup {

  /**
   * @param contract the contract instance of the current test
   */
  LeaseTests(IdempotencyStoreContract contract) {
    super(contract);
  }

  @Test
  void extendedLeaseIsNotTakenOver() throws Exception {
    ClaimId id = id("k");
    LeaseToken token = LeaseToken.random();
    claim(id, "v1:a", token, shortLease());

    assertThat(store.extendLease(id, token, LONG)).isTrue();
    elapse(shortLease());

    assertThat(claim(id, "v1:a", LeaseToken.random(), LONG))
        .isInstanceOf(ClaimAttempt.Existing.class);
    assertThat(store.find(id).orElseThrow().token()).isEqualTo(token);
  }

  @Test
  void extendedLeaseKeepsRowAliveBeyondItsRetention() throws Exception {
    ClaimId id = id("k");
    LeaseToken token = LeaseToken.random();
    store.claim(new ClaimRequest(id, "v1:a", token, shortLease(), shortLease()));

    assertThat(store.extendLease(id, token, LONG)).isTrue();
    elapse(shortLease());

    ClaimRecord row = store.find(id).orElseThrow();
    assertThat(row.expiresAt()).isAfterOrEqualTo(row.leaseExpiresAt());
    assertThat(claim(id, "v1:b", LeaseToken.random(), LONG))
        .isInstanceOf(ClaimAttempt.Existing.class);
  }

  @Test
  void releaseFreesTheKeyForAFreshAttempt() {
    ClaimId id = id("k");
    LeaseToken token = LeaseToken.random();
    claim(id, "v1:a", token, LONG);

    assertThat(store.release(id, token)).isTrue();

    assertThat(store.find(id)).isEmpty();
    ClaimAttempt again = claim(id, "v1:a", LeaseToken.random(), LONG);
    assertThat(again).isInstanceOf(ClaimAttempt.Acquired.class);
    assertThat(again.record().attempt()).isEqualTo(1);
  }

  @Test
  void failingActionReleasesSoTheRetryRuns() {
    IdempotencyGate gate = gate(GatePolicy.defaults());
    AtomicInteger runs = new AtomicInteger();
    assertThatThrownBy(
            () ->
                gate.execute(
                        call("k", Map.of()),
                        ResultMapper.utf8(),
                        ctx -> {
                          runs.incrementAndGet();
                          throw new IllegalStateException("provider down");
                        })
                    .orThrow())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("provider down");

    GateResult<String> retry =
        gate.execute(
            call("k", Map.of()), ResultMapper.utf8(), ctx -> "ok-" + runs.incrementAndGet());

    assertThat(((GateResult.Executed<String>) retry).value()).isEqualTo("ok-2");
  }

  @Test
  void extendLeasesExtendsOnlyTheLeasesStillHeldAndSaysWhich() throws Exception {
    ClaimId held = id("held");
    LeaseToken heldToken = LeaseToken.random();
    claim(held, "v1:a", heldToken, shortLease());
    ClaimId takenOver = id("taken-over");
    LeaseToken[] tokens = takenOver(takenOver, LONG);
    ClaimId completed = id("completed");
    LeaseToken completedToken = LeaseToken.random();
    claim(completed, "v1:a", completedToken, shortLease());
    assertThat(store.complete(completed, completedToken, value("done"), LONG)).isTrue();
    ClaimId unknown = id("unknown");
    LeaseToken unknownToken = LeaseToken.random();
    claim(unknown, "v1:a", unknownToken, shortLease());
    assertThat(store.markUnknown(unknown, unknownToken, LONG)).isTrue();
    ClaimId absent = id("absent");
    LeaseToken absentToken = LeaseToken.random();
    ClaimRecord completedBefore = store.find(completed).orElseThrow();
    ClaimRecord unknownBefore = store.find(unknown).orElseThrow();
    ClaimRecord takenOverBefore = store.find(takenOver).orElseThrow();

    Instant before = store.now();
    ExtendedLeases answer =
        store.extendLeases(
            List.of(
                new dev.mcpgate.core.spi.HeldLease(held, heldToken),
                new dev.mcpgate.core.spi.HeldLease(takenOver, tokens[0]),
                new dev.mcpgate.core.spi.HeldLease(completed, completedToken),
                new dev.mcpgate.core.spi.HeldLease(unknown, unknownToken),
                new dev.mcpgate.core.spi.HeldLease(absent, absentToken)),
            LONG,
            RENEWAL_DEADLINE);

    assertThat(answer.extended()).containsExactly(heldToken);
    assertThat(answer.undecided()).as("nothing is left undecided by a healthy store").isEmpty();
    assertThat(store.find(held).orElseThrow().leaseExpiresAt()).isAfterOrEqualTo(before.plus(LONG));
    assertThat(store.find(takenOver)).contains(takenOverBefore);
    assertThat(store.find(completed)).contains(completedBefore);
    assertThat(store.find(unknown)).contains(unknownBefore);
    assertThat(store.find(absent)).isEmpty();
    elapse(shortLease());
    assertThat(claim(held, "v1:a", LeaseToken.random(), LONG))
        .as("an extended lease is not taken over")
        .isInstanceOf(ClaimAttempt.Existing.class);
    assertThat(store.extendLeases(List.of(), LONG, RENEWAL_DEADLINE).extended()).isEmpty();
  }

  @Test
  void extendLeasesRenewsManyLeasesAtOnce() throws Exception {
    List<dev.mcpgate.core.spi.HeldLease> leases = new ArrayList<>();
    for (int i = 0; i < 230; i++) {
      LeaseToken token = LeaseToken.random();
      ClaimId id = id("many-" + i);
      claim(id, "v1:a", token, shortLease());
      leases.add(new dev.mcpgate.core.spi.HeldLease(id, token));
    }
    ExtendedLeases answer = store.extendLeases(leases, LONG, RENEWAL_DEADLINE);
    assertThat(answer.extended()).hasSize(leases.size());
    elapse(shortLease());
    for (dev.mcpgate.core.spi.HeldLease lease : leases) {
      assertThat(claim(lease.id(), "v1:a", LeaseToken.random(), LONG))
          .as(lease.id().key())
          .isInstanceOf(ClaimAttempt.Existing.class);
    }
  }
}
