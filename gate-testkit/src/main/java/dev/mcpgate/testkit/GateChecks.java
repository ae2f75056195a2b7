package dev.mcpgate.testkit;

import static java.util.Objects.requireNonNull;

import dev.mcpgate.mcp.McpGateErrors;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;
import org.opentest4j.AssertionFailedError;

/**
 * Every check of the kit, for every write tool of a server: the survey, then for each tool that is
 * not read-only the retry check, the concurrent-first-calls check and (when you describe a
 * scenario) the arrival-order check. The JUnit 5 extension ({@code dev.mcpgate.testkit.junit})
 * turns the plan into one test per tool and check; without JUnit, {@link #runAll()} runs it.
 *
 * <p>Arguments are made from each tool's input schema (a sample value for every required property,
 * a fresh value for each natural-key property), and the key goes where the gate says it reads it
 * (the {@code _meta} entry {@value McpGateErrors#META_TOOL}): an argument, or {@code _meta} {@value
 * McpGateErrors#META_KEY}. Tools that need real values (an order that exists) get them from {@link
 * Tool#arguments(Function)}; what a duplicate would change is read by {@link Tool#probe(String,
 * Supplier)}, as in {@link RetryCheck}.
 *
 * <pre>{@code
 * GateChecks checks = GateChecks.of(client);
 * checks.tool("refund_order")
 *     .arguments(token -> Map.of("order_id", "o-1", "amount_cents", 500))
 *     .probe("refunds", () -> payments.refunds().size())
 *     .expectFirstCallChange("refunds", 1);
 * checks.runAll();   // or let @McpGateChecks make a test of each
 * }</pre>
 */
public final class GateChecks {

  /** The checks, as a test's display names say them. */
  public static final String RETRY = "retry",
      CONCURRENT = "concurrent first calls",
      ARRIVAL_ORDER = "arrival order",
      SETTINGS = "settings";

  /**
   * One check of one tool.
   *
   * @param tool the tool
   * @param check {@link #RETRY}, {@link #CONCURRENT}, {@link #ARRIVAL_ORDER}, or {@link #SETTINGS}
   *     (settings given for a tool the server does not list, which fails)
   * @param run runs it; throws {@link AssertionFailedError} naming the tool when it fails
   * @param skipped why it does not run, or null
   */
  public record Planned(String tool, String check, Runnable run, String skipped) {}

  /** How a planned check ended, for the report. */
  public enum Outcome {
    PASSED,
    FAILED,
    SKIPPED
  }

  private final McpSyncClient client;
  private final Map<String, Tool> tools = new LinkedHashMap<>();
  private final Set<String> safeTools = new LinkedHashSet<>();
  private final List<CheckReport.Result> results = new ArrayList<>();
  private int copies = 8;
  private ToolSurvey survey;

  private GateChecks(McpSyncClient client) {
    this.client = client;
  }

  /**
   * @param client an initialized client of the server under test
   */
  public static GateChecks of(McpSyncClient client) {
    return new GateChecks(requireNonNull(client, "client must not be null"));
  }

  /**
   * @return the client the checks call through
   */
  public McpSyncClient client() {
    return client;
  }

  /**
   * @return the settings of one tool, made on first use
   */
  public Tool tool(String name) {
    return tools.computeIfAbsent(requireNonNull(name, "name must not be null"), Tool::new);
  }

  /**
   * Write tools that their owners vouch for without a gate (the starter's {@code
   * mcpgate.safe-tools}): they count as declared safe in the survey, and still get the checks,
   * which need a probe to pass.
   */
  public GateChecks safeTools(Collection<String> names) {
    safeTools.addAll(requireNonNull(names, "names must not be null"));
    return this;
  }

  /**
   * @param copies how many concurrent copies each check sends, at least 2 (8 by default)
   */
  public GateChecks concurrentCopies(int copies) {
    if (copies < 2) {
      throw new IllegalArgumentException("copies must be at least 2, was " + copies);
    }
    this.copies = copies;
    return this;
  }

  /**
   * @return the survey of the server's tools ({@code tools/list}), made once
   */
  public synchronized ToolSurvey survey() {
    if (survey == null) {
      List<McpSchema.Tool> listed = ToolSurvey.listTools(client);
      ToolSurvey raw = ToolSurvey.ofTools(listed);
      List<ToolSurvey.Entry> entries = new ArrayList<>();
      for (ToolSurvey.Entry e : raw.entries()) {
        entries.add(
            e.kind() == ToolSurvey.Kind.NOT_GATED && safeTools.contains(e.tool())
                ? new ToolSurvey.Entry(
                    e.tool(),
                    ToolSurvey.Kind.DECLARED_SAFE,
                    "listed as safe to run twice, not gated: verify it with a probe")
                : e);
      }
      survey = ToolSurvey.ofEntries(entries);
      definitions.clear();
      listed.forEach(t -> definitions.put(t.name(), t));
    }
    return survey;
  }

  private final Map<String, McpSchema.Tool> definitions = new LinkedHashMap<>();

  /**
   * @return the write tools of the survey that are neither gated nor declared safe
   */
  public List<String> ungatedWrites() {
    return survey().notGated().stream().map(ToolSurvey.Entry::tool).toList();
  }

  /**
   * @return every check of every write tool (not read-only, not {@linkplain Tool#skip skipped}), in
   *     the server's order; arrival order is skipped, with the reason, where no scenario is set.
   *     Settings for a tool the server does not list come first, as a failing {@link #SETTINGS}
   *     check.
   */
  public List<Planned> plan() {
    List<Planned> plan = new ArrayList<>();
    Set<String> listed = new LinkedHashSet<>();
    survey().entries().forEach(e -> listed.add(e.tool()));
    for (Tool t : List.copyOf(tools.values())) {
      if (!listed.contains(t.name) && t.hasSettings()) {
        String why =
            t.name
                + ": settings were given for a tool the server does not list (it lists "
                + listed
                + "), so they check nothing. Fix the name (was the tool renamed?), or remove them.";
        plan.add(
            recorded(
                new Planned(
                    t.name,
                    SETTINGS,
                    () -> {
                      throw new AssertionFailedError(why);
                    },
                    null)));
      }
    }
    for (ToolSurvey.Entry entry : survey().entries()) {
      if (entry.kind() == ToolSurvey.Kind.READ_ONLY) {
        continue;
      }
      String name = entry.tool();
      Tool t = tool(name);
      if (t.skipReason != null) {
        for (String check : List.of(RETRY, CONCURRENT, ARRIVAL_ORDER)) {
          plan.add(recorded(new Planned(name, check, null, t.skipReason)));
        }
        continue;
      }
      McpSchema.Tool definition = definitions.get(name);
      plan.add(
          recorded(
              new Planned(
                  name,
                  RETRY,
                  () ->
                      t.retryCheck()
                          .assertSafeToRetry(
                              SampleCall.of(definition, t.name, t.arguments, token())),
                  null)));
      plan.add(
          recorded(
              new Planned(
                  name,
                  CONCURRENT,
                  () ->
                      t.retryCheck()
                          .assertConcurrentFirstCallsRunOnce(
                              SampleCall.of(definition, t.name, t.arguments, token())),
                  null)));
      plan.add(
          recorded(
              t.arrivalOrder == null
                  ? new Planned(
                      name,
                      ARRIVAL_ORDER,
                      null,
                      "no arrival-order scenario: set one with"
                          + " tool(\""
                          + name
                          + "\").arrivalOrder(fresh, first, second, state) if two"
                          + " different calls can close the same record")
                  : new Planned(name, ARRIVAL_ORDER, t.arrivalOrder, null)));
    }
    return plan;
  }

  /** Wraps a planned check so that its outcome goes into the report. */
  private Planned recorded(Planned p) {
    if (p.skipped() != null) {
      return new Planned(
          p.tool(), p.check(), () -> record(p, Outcome.SKIPPED, p.skipped()), p.skipped());
    }
    return new Planned(
        p.tool(),
        p.check(),
        () -> {
          try {
            p.run().run();
            record(p, Outcome.PASSED, "");
          } catch (RuntimeException | AssertionError e) {
            record(p, Outcome.FAILED, String.valueOf(e.getMessage()));
            throw e;
          }
        },
        null);
  }

  private synchronized void record(Planned p, Outcome outcome, String detail) {
    results.add(new CheckReport.Result(p.tool(), p.check(), outcome, detail));
  }

  /**
   * Runs every planned check, without JUnit.
   *
   * @throws AssertionFailedError naming every tool and check that failed, with the report
   */
  public void runAll() {
    List<String> failures = new ArrayList<>();
    for (Planned p : plan()) {
      try {
        p.run().run();
      } catch (RuntimeException | AssertionError e) {
        failures.add(p.tool() + " (" + p.check() + "): " + e.getMessage());
      }
    }
    if (!failures.isEmpty()) {
      throw new AssertionFailedError(
          failures.size()
              + " gate checks failed:\n  "
              + String.join("\n  ", failures)
              + "\n\n"
              + report());
    }
  }

  /**
   * @return the survey, the ungated writes, and how each check that ran so far ended
   */
  public synchronized String report() {
    return CheckReport.format(survey(), ungatedWrites(), results);
  }

  private static String token() {
    return "mcpgate-check-" + UUID.randomUUID();
  }

  /** The settings of one tool. */
  public final class Tool {
    private final String name;
    private Function<String, Map<String, Object>> arguments;
    private final Map<String, Supplier<?>> probes = new LinkedHashMap<>();
    private final Map<String, Long> expected = new LinkedHashMap<>();
    private Runnable arrivalOrder;
    private String skipReason;

    private Tool(String name) {
      this.name = name;
    }

    /**
     * @param arguments the arguments of a call, given a token that is new for each call (put it
     *     where a call must differ from the last: a natural key, a new record's name); the kit adds
     *     the idempotency key
     */
    public Tool arguments(Function<String, Map<String, Object>> arguments) {
      this.arguments = requireNonNull(arguments, "arguments must not be null");
      return this;
    }

    /**
     * @see RetryCheck#probe(String, Supplier)
     */
    public Tool probe(String probeName, Supplier<?> probe) {
      probes.put(
          requireNonNull(probeName, "probeName must not be null"),
          requireNonNull(probe, "probe must not be null"));
      return this;
    }

    /**
     * @see RetryCheck#expectFirstCallChange(String, long)
     */
    public Tool expectFirstCallChange(String probe, long delta) {
      if (!probes.containsKey(probe)) {
        throw new IllegalArgumentException(
            "no probe named \"" + probe + "\"; probes: " + probes.keySet());
      }
      expected.put(probe, delta);
      return this;
    }

    /**
     * The scenario's calls get a new idempotency key where the gate reads it, when they carry none.
     *
     * @see ArrivalOrderCheck#assertSameEndState
     */
    public <S> Tool arrivalOrder(
        Supplier<S> fresh,
        Function<S, CallToolRequest> first,
        Function<S, CallToolRequest> second,
        Function<S, ?> state) {
      requireNonNull(fresh, "fresh must not be null");
      requireNonNull(first, "first must not be null");
      requireNonNull(second, "second must not be null");
      requireNonNull(state, "state must not be null");
      this.arrivalOrder =
          () ->
              ArrivalOrderCheck.assertSameEndState(
                  client,
                  fresh,
                  s -> SampleCall.withKey(definitions.get(name), first.apply(s), token()),
                  s -> SampleCall.withKey(definitions.get(name), second.apply(s), token()),
                  state);
      return this;
    }

    /** Leaves the tool out of the checks (they show as skipped, with the reason). */
    public Tool skip(String reason) {
      this.skipReason = "skipped: " + requireNonNull(reason, "reason must not be null");
      return this;
    }

    private boolean hasSettings() {
      return arguments != null || !probes.isEmpty() || arrivalOrder != null || skipReason != null;
    }

    private RetryCheck retryCheck() {
      RetryCheck check = RetryCheck.of(client).concurrentCopies(copies);
      probes.forEach(check::probe);
      expected.forEach(check::expectFirstCallChange);
      return check;
    }
  }
}
