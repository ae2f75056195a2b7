package dev.mcpgate.dynamodb;

import static dev.mcpgate.dynamodb.ClaimItems.EXPIRES;
import static dev.mcpgate.dynamodb.ClaimItems.HASH;
import static dev.mcpgate.dynamodb.ClaimItems.LEASE;
import static dev.mcpgate.dynamodb.ClaimItems.STATE;
import static dev.mcpgate.dynamodb.ClaimItems.TOKEN;
import static dev.mcpgate.dynamodb.ClaimItems.s;

import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimState;

/** The condition expressions of the store's writes, built through an {@link Expression}. */
final class Conditions {
  private Conditions() {}

  /**
   * The SPI's one takeover rule ({@link dev.mcpgate.core.spi.Takeover#allowed}) as a condition on
   * the item, in parentheses; {@code now} is the store's clock less the safety margin. Only an
   * in-progress item is taken over by lease expiry: an unknown one stays fenced until it expires, a
   * completed one is kept until it expires.
   *
   * @param now the placeholder of the clock value
   * @param hash the placeholder of the claim's argument hash
   */
  static String takeoverAllowed(Expression e, String now, String hash) {
    return "("
        + e.name(EXPIRES)
        + " <= "
        + now
        + " OR ("
        + e.name(STATE)
        + " = "
        + e.value(s(ClaimState.IN_PROGRESS.name()))
        + " AND "
        + e.name(LEASE)
        + " <= "
        + now
        + " AND "
        + e.name(HASH)
        + " = "
        + hash
        + "))";
  }

  /**
   * @return the item is held by {@code token} and its state is ({@code "="}) or is not ({@code
   *     "<>"}) {@code state}
   */
  static String heldBy(Expression e, LeaseToken token, String op, ClaimState state) {
    return e.equals(TOKEN, s(token.value()))
        + " AND "
        + e.name(STATE)
        + " "
        + op
        + " "
        + e.value(s(state.name()));
  }
}
