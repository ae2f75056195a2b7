package dev.mcpgate.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;

/**
 * What every group of the contract's tests shares. Each group (such as {@link TakeoverTests}) is
 * run as a {@link org.junit.jupiter.api.Nested} inner class of {@link IdempotencyStoreContract}, so
 * JUnit builds it on an instance of the store's own subclass of the contract, after that instance's
 * {@code @BeforeEach} methods built the store: the group reaches the subclass's hooks through
 * {@link #contract}, and sees the current test's store and tenant as {@link #store} and {@link
 * #tenant}, as the tests did when they were methods of the contract itself.
 */
abstract class ContractGroup {

  /** {@link IdempotencyStoreContract#LONG}. */
  static final Duration LONG = IdempotencyStoreContract.LONG;

  /** {@link IdempotencyStoreContract#RENEWAL_DEADLINE}. */
  static final Duration RENEWAL_DEADLINE = IdempotencyStoreContract.RENEWAL_DEADLINE;

  /** The contract instance (the store's subclass) the current test runs on. */
  final IdempotencyStoreContract contract;

  /** The contract's {@link IdempotencyStoreContract#store} for the current test. */
  IdempotencyStore store;

  /** The contract's {@link IdempotencyStoreContract#tenant} for the current test. */
  String tenant;

  /**
   * @param contract the contract instance of the current test
   */
  ContractGroup(IdempotencyStoreContract contract) {
    this.contract = contract;
  }

  /** Runs after the contract's own {@code @BeforeEach} methods, which built the store. */
  @BeforeEach
  void takeTheContractsStore() {
    store = contract.store;
    tenant = contract.tenant;
  }

  /** {@link IdempotencyStoreContract#id}. */
  ClaimId id(String key) {
    return contract.id(key);
  }

  /** {@link IdempotencyStoreContract#claim}. */
  ClaimAttempt claim(ClaimId id, String hash, LeaseToken token, Duration lease) {
    return contract.claim(id, hash, token, lease);
  }

  /** {@link IdempotencyStoreContract#value}. */
  static StoredResult value(String text) {
    return IdempotencyStoreContract.value(text);
  }

  /** {@link IdempotencyStoreContract#call}. */
  ToolCall call(String key, Map<String, ?> args) {
    return contract.call(key, args);
  }

  /** The contract's hook {@link IdempotencyStoreContract#elapse}. */
  void elapse(Duration d) throws InterruptedException {
    contract.elapse(d);
  }

  /** The contract's hook {@link IdempotencyStoreContract#shortLease}. */
  Duration shortLease() {
    return contract.shortLease();
  }

  /** The contract's hook {@link IdempotencyStoreContract#maxResultBytesToTest}. */
  int maxResultBytesToTest() {
    return contract.maxResultBytesToTest();
  }

  /** The contract's hook {@link IdempotencyStoreContract#threadsOnOneKey}. */
  int threadsOnOneKey() {
    return contract.threadsOnOneKey();
  }

  /** The contract's hook {@link IdempotencyStoreContract#threadsAndKeys}. */
  int[] threadsAndKeys() {
    return contract.threadsAndKeys();
  }

  /**
   * Claims id with a short lease, lets it expire, and has a second attempt take it over.
   *
   * @return the stale token (index 0) and the current one (index 1)
   */
  LeaseToken[] takenOver(ClaimId id, Duration currentLease) throws InterruptedException {
    LeaseToken stale = LeaseToken.random();
    claim(id, "v1:a", stale, shortLease());
    elapse(shortLease());
    LeaseToken current = LeaseToken.random();
    assertThat(claim(id, "v1:a", current, currentLease)).isInstanceOf(ClaimAttempt.Acquired.class);
    return new LeaseToken[] {stale, current};
  }

  /** A gate on the current test's store, with {@code policy}. */
  IdempotencyGate gate(GatePolicy policy) {
    return IdempotencyGate.builder(store).policy(policy).build();
  }
}
