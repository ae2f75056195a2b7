package dev.mcpgate.testkit;

import static java.util.Objects.requireNonNull;

import dev.mcpgate.mcp.McpGateErrors;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.opentest4j.AssertionFailedError;

/**
 * Asserts, through a real client connection, that a write tool is safe to call twice: a retry
 * returns the first result and changes nothing, concurrent copies run once, and the same key with
 * other arguments is refused. State is read by probes that you supply (a count of rows, of charges,
 * of mails sent); a probe must not change after the first call.
 *
 * <p>The kit demands evidence, since "the same answer twice" proves nothing (a tool that returns
 * "ok" and counts every call gives it): a retry of a gated tool must carry the gate's replay mark;
 * a tool that is not gated (declared safe with {@code idempotentHint}) needs a probe that sees its
 * first call's effect, and the check fails, saying how to add one, when there is none.
 *
 * <pre>{@code
 * RetryCheck.of(client)
 *     .probe("refunds", () -> paymentProvider.refunds().size())
 *     .expectFirstCallChange("refunds", 1)
 *     .assertSafeToRetry(refundCall("key-1"))
 *     .assertConcurrentFirstCallsRunOnce(refundCall("key-2"))
 *     .assertConflictRefused(refundCall("key-1"), refundCallWithOtherAmount("key-1"));
 * }</pre>
 *
 * Each failure is an {@link AssertionFailedError} that names the tool and says what changed.
 */
public final class RetryCheck {
  private final McpSyncClient client;
  private final Map<String, Supplier<?>> probes = new LinkedHashMap<>();
  private final Map<String, Long> expectedChange = new LinkedHashMap<>();
  private int copies = 8;

  private RetryCheck(McpSyncClient client) {
    this.client = client;
  }

  /**
   * @param client an initialized client of the server under test
   */
  public static RetryCheck of(McpSyncClient client) {
    return new RetryCheck(requireNonNull(client, "client must not be null"));
  }

  /**
   * @param name what the probe reads, for failure messages ("refunds")
   * @param probe reads the state a duplicate would change; compared with {@code equals}. What it
   *     returns is copied when read (maps, collections and arrays deeply, atomic counters by
   *     value), so it may return a live collection; copy other mutable objects yourself
   */
  public RetryCheck probe(String name, Supplier<?> probe) {
    probes.put(
        requireNonNull(name, "name must not be null"),
        requireNonNull(probe, "probe must not be null"));
    return this;
  }

  /**
   * @param probe the name of a numeric probe
   * @param delta how much one first call changes it (a refund: 1)
   */
  public RetryCheck expectFirstCallChange(String probe, long delta) {
    if (!probes.containsKey(probe)) {
      throw new IllegalArgumentException(
          "no probe named \"" + probe + "\"; probes: " + probes.keySet());
    }
    expectedChange.put(probe, delta);
    return this;
  }

  /**
   * @param copies how many concurrent copies to send, at least 2 (8 by default)
   */
  public RetryCheck concurrentCopies(int copies) {
    if (copies < 2) {
      throw new IllegalArgumentException("copies must be at least 2, was " + copies);
    }
    this.copies = copies;
    return this;
  }

  private Map<String, Object> read() {
    Map<String, Object> state = new LinkedHashMap<>();
    probes.forEach((name, probe) -> state.put(name, Results.snapshot(probe.get())));
    return state;
  }

  private CallToolResult call(CallToolRequest request) {
    return client.callTool(request);
  }

  private List<CallToolResult> concurrently(CallToolRequest request) {
    return Copies.send(client, request, copies);
  }

  private void assertUnchanged(
      String tool, String what, Map<String, Object> before, Map<String, Object> after) {
    for (String name : before.keySet()) {
      if (!Objects.equals(before.get(name), after.get(name))) {
        throw new AssertionFailedError(
            tool
                + " wrote twice: probe '"
                + name
                + "' was "
                + before.get(name)
                + " after the first call and "
                + after.get(name)
                + " after "
                + what,
            before,
            after);
      }
    }
  }

  private void assertFirstChange(
      String tool, String what, Map<String, Object> before, Map<String, Object> after) {
    expectedChange.forEach(
        (name, delta) -> {
          Object b = before.get(name);
          Object a = after.get(name);
          if (!(b instanceof Number nb) || !(a instanceof Number na)) {
            throw new IllegalStateException("probe '" + name + "' is not numeric: " + b + ", " + a);
          }
          long change = na.longValue() - nb.longValue();
          if (change != delta) {
            throw new AssertionFailedError(
                tool
                    + ": "
                    + what
                    + " changed probe '"
                    + name
                    + "' by "
                    + change
                    + " (from "
                    + b
                    + " to "
                    + a
                    + "), but one call changes it by "
                    + delta
                    + (change > delta ? ": it ran more than once" : ""),
                delta,
                change);
          }
        });
  }

  /**
   * Evidence for a tool that is not gated: some probe must change with the first call, or the
   * probes watch nothing this tool does and their silence proves nothing.
   */
  private void assertProbesSawTheFirstCall(
      String tool, Map<String, Object> before, Map<String, Object> afterFirst) {
    if (probes.isEmpty()) {
      throw new AssertionFailedError(
          tool
              + ": the retry carries no replay mark ("
              + McpGateErrors.META_REPLAYED
              + "), so the tool is not gated, and no probe watches its effect: the same answer"
              + " twice is not evidence. Gate the tool, or add .probe(\"name\", () -> ...) reading"
              + " what it changes (rows, charges, mails sent).");
    }
    if (before.equals(afterFirst)) {
      throw new AssertionFailedError(
          tool
              + ": the retry carries no replay mark, and no probe "
              + probes.keySet()
              + " changed with the first call: they do not watch this tool's"
              + " effect, so their silence after the retry is not evidence. Probe what the tool"
              + " changes.");
    }
  }

  /**
   * A first answer that is an error, with no replay after it: the gate keeps no error by default,
   * so nothing here says whether the tool is gated, and nothing ran to test.
   */
  private static void assertNotAnError(String tool, String what, CallToolResult r) {
    if (Boolean.TRUE.equals(r.isError())) {
      throw new AssertionFailedError(
          tool
              + ": the "
              + what
              + " answered an error, so nothing ran to test: "
              + Results.describe(r)
              + ". A gate keeps no error by default (it releases the key), so a retry runs again"
              + " without a replay mark: the missing mark says nothing of the gate. Give the"
              + " check arguments that succeed (in GateChecks: .arguments(token -> ...)).");
    }
  }

  private static void assertNotRefused(String tool, String what, CallToolResult r) {
    String type = Results.errorType(r);
    if (type != null && type.startsWith("idempotency_")) {
      throw new AssertionFailedError(
          tool + ": " + what + " was refused (" + type + "): " + Results.describe(r));
    }
  }

  /**
   * Sends the call, sends it again (a retry after a lost response), then sends concurrent copies of
   * it. Every answer must equal the first, and no probe may change after the first call. When the
   * retry carries the gate's replay mark, every copy must carry it too. A tool that answers its
   * second call with an error (a delete that fails the second time) passes when probes given {@link
   * #expectFirstCallChange} show its effect once: its copies must then answer as the retry.
   *
   * @param call a call with its idempotency key (or natural key) set, never sent before: a first
   *     call that is a replay fails the check
   * @return this, to chain more checks
   */
  public RetryCheck assertSafeToRetry(CallToolRequest call) {
    requireNonNull(call, "call must not be null");
    String tool = call.name();
    Map<String, Object> before = read();
    CallToolResult first = call(call);
    assertNotRefused(tool, "the first call", first);
    if (Results.isReplay(first)) {
      throw new AssertionFailedError(
          tool
              + ": the first call was a replay of an earlier call with the same key, so no first"
              + " call was tested. Give the check a call never sent before: a new idempotency"
              + " key, or, for a tool keyed by a natural key, new values in that key.");
    }
    Map<String, Object> afterFirst = read();
    assertFirstChange(tool, "the first call", before, afterFirst);

    CallToolResult retry = call(call);
    // a tool that fails its second call (a delete): its error, when probes count one run
    boolean refusesAgain =
        !Results.same(first, retry)
            && !Results.isReplay(retry)
            && Boolean.TRUE.equals(retry.isError())
            && !Boolean.TRUE.equals(first.isError())
            && !expectedChange.isEmpty()
            && afterFirst.equals(read());
    if (!Results.same(first, retry) && !refusesAgain) {
      throw new AssertionFailedError(
          tool
              + ": the retry returned a different result than the first call: it ran again, or"
              + " it answers a retry otherwise (a tool that fails its second call passes when a"
              + " probe given expectFirstCallChange shows its effect once)",
          Results.describe(first),
          Results.describe(retry));
    }
    CallToolResult expected = refusesAgain ? retry : first;
    boolean gated = Results.isReplay(retry) && ToolSurvey.gatedByMcpGate(client, tool);
    if (!gated) {
      assertNotAnError(tool, "first call", first);
      assertProbesSawTheFirstCall(tool, before, afterFirst);
    }
    assertUnchanged(tool, "the retry", afterFirst, read());

    List<CallToolResult> copiesResults = concurrently(call);
    for (CallToolResult r : copiesResults) {
      if (gated && !Results.isReplay(r)) {
        throw new AssertionFailedError(
            tool
                + ": the retry was a replay, but one of "
                + copies
                + " concurrent copies carries no replay mark ("
                + McpGateErrors.META_REPLAYED
                + "): it ran the tool again. Make every call reach one idempotency store"
                + " (replicas with a store each run the same key once each).",
            Results.describe(retry),
            Results.describe(r));
      }
      if (!Results.same(expected, r)) {
        throw new AssertionFailedError(
            tool
                + ": one of "
                + copies
                + " concurrent copies returned"
                + " a different result than the "
                + (refusesAgain ? "retry" : "first call"),
            Results.describe(expected),
            Results.describe(r));
      }
    }
    assertUnchanged(tool, copies + " concurrent copies", afterFirst, read());
    return this;
  }

  /**
   * Sends concurrent copies of a call that was never sent before: they must all get the same answer
   * (or, for a tool that fails its second call, one answer and the same error for the others), and
   * the probes given {@link #expectFirstCallChange} must change as one call does. When some answers
   * carry the gate's replay mark, exactly one may lack it: the one that ran.
   *
   * @param freshCall a call with a new key
   * @return this, to chain more checks
   */
  public RetryCheck assertConcurrentFirstCallsRunOnce(CallToolRequest freshCall) {
    requireNonNull(freshCall, "freshCall must not be null");
    String tool = freshCall.name();
    Map<String, Object> before = read();
    List<CallToolResult> results = concurrently(freshCall);
    // a tool that fails its second call (a delete): counted by probes with an expected change
    CallToolResult once = expectedChange.isEmpty() ? null : Results.onceThenRefused(results);
    boolean refusesAgain = once != null;
    CallToolResult first = refusesAgain ? once : results.get(0);
    for (CallToolResult r : results) {
      assertNotRefused(tool, "a concurrent first call", r);
      if (!Results.same(first, r) && !refusesAgain) {
        throw new AssertionFailedError(
            tool
                + " ran more than once: "
                + copies
                + " concurrent"
                + " first calls got different answers",
            Results.describe(first),
            Results.describe(r));
      }
    }
    Map<String, Object> after = read();
    long ran = results.stream().filter(r -> !Results.isReplay(r)).count();
    if (ran == 0) {
      throw new AssertionFailedError(
          tool
              + ": all "
              + copies
              + " concurrent first calls were replays of an earlier call with the same key, so"
              + " no first call was tested. Give the check a call never sent before: a new"
              + " idempotency key, or, for a tool keyed by a natural key, the token in that key"
              + " (arguments(token -> ...)).");
    }
    if (ran > 1 && ran < results.size()) {
      throw new AssertionFailedError(
          tool
              + " ran "
              + ran
              + " times for one key: of "
              + copies
              + " concurrent first calls, "
              + ran
              + " answers carry no replay mark ("
              + McpGateErrors.META_REPLAYED
              + "), and a gated tool runs once and replays that answer to the others. Make every"
              + " copy reach one idempotency store (replicas with a store each run it once each).",
          1,
          ran);
    }
    if (ran == results.size() || !ToolSurvey.gatedByMcpGate(client, tool)) {
      assertNotAnError(tool, "first call", first);
      assertProbesSawTheFirstCall(tool, before, after);
      if (expectedChange.isEmpty()) {
        throw new AssertionFailedError(
            tool
                + ": none of "
                + copies
                + " concurrent first calls"
                + " was a replay, or its tools/list entry shows no gate of MCP Gate ("
                + McpGateErrors.META_TOOL
                + "), so replay marks say nothing of it, and no probe says how much one call"
                + " changes: add .expectFirstCallChange(\"probe\", 1) to count its runs");
      }
    }
    assertFirstChange(tool, copies + " concurrent first calls", before, after);
    return this;
  }

  /**
   * Sends the call (if it was sent before, this is a replay), then the same key with other
   * arguments: that must be refused as a conflict, and change nothing.
   *
   * @param call a call
   * @param sameKeyOtherArguments the same key with other arguments
   * @return this, to chain more checks
   */
  public RetryCheck assertConflictRefused(
      CallToolRequest call, CallToolRequest sameKeyOtherArguments) {
    requireNonNull(call, "call must not be null");
    requireNonNull(sameKeyOtherArguments, "sameKeyOtherArguments must not be null");
    String tool = sameKeyOtherArguments.name();
    call(call);
    Map<String, Object> before = read();
    CallToolResult conflict = call(sameKeyOtherArguments);
    String type = Results.errorType(conflict);
    if (!McpGateErrors.KEY_CONFLICT.equals(type)) {
      throw new AssertionFailedError(
          tool
              + ": the same key with other arguments was not refused"
              + " as a conflict: "
              + Results.describe(conflict),
          McpGateErrors.KEY_CONFLICT,
          type);
    }
    assertUnchanged(tool, "the conflicting call", before, read());
    return this;
  }
}
