package dev.mcpgate.mcp;

import static java.util.Objects.requireNonNull;

import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateSettings;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * How one tool is gated: where its key comes from, how the model is told of it, and what of the
 * gate's policy it sets ({@link #settings()}). Immutable; build one with {@link #builder()}, or
 * take {@link #defaults()}.
 *
 * @param keySources where the key comes from, in order of precedence (default: argument, then meta)
 * @param keyArgument the key argument's name (default {@code idempotency_key})
 * @param naturalKey argument names whose values make the key, with {@link KeySource#NATURAL}
 * @param required true (default) to refuse a call without a key; false to run it ungated
 * @param keepKeyArgument true to pass the key argument on to the handler (default: removed, when
 *     the argument is a key source; a tool whose keys come from elsewhere keeps an argument of that
 *     name as its own)
 * @param settings what this tool sets of its gate's policy, each value set or inherited ({@link
 *     GateSettings#inherited()} by default); resolved by {@link GatePolicy#with}, with the key
 *     argument left out of the hash when it is a key source
 * @param keyDescription what the key argument means, when it is not a fresh value per request (an
 *     app's id of a queued request, say): the key argument's description in the input schema, and
 *     the tool's retry sentence then asks for the same arguments only; null for the default ("a new
 *     unique value for each new request")
 * @param inFlight what a call does while another attempt with its key runs: {@link InFlight#WAIT}
 *     (default) waits the gate's in-flight wait for that attempt's result; {@link InFlight#REFUSE}
 *     refuses at once with {@code idempotency_key_in_progress} (SEP-3182's choice)
 */
public record ToolPolicy(
    List<KeySource> keySources,
    String keyArgument,
    List<String> naturalKey,
    boolean required,
    boolean keepKeyArgument,
    GateSettings settings,
    String keyDescription,
    InFlight inFlight) {

  /** The default name of the key argument. */
  public static final String DEFAULT_KEY_ARGUMENT = "idempotency_key";

  /**
   * @throws IllegalArgumentException naming the component that is wrong
   */
  public ToolPolicy {
    requireNonNull(keySources, "keySources must not be null");
    if (keySources.isEmpty()) {
      throw new IllegalArgumentException("keySources must name at least one source");
    }
    keySources = List.copyOf(keySources);
    if (keySources.size() != Set.copyOf(keySources).size()) {
      throw new IllegalArgumentException("keySources must not repeat a source: " + keySources);
    }
    requireNonNull(keyArgument, "keyArgument must not be null");
    if (keyArgument.isBlank()) {
      throw new IllegalArgumentException("keyArgument must not be blank");
    }
    naturalKey = List.copyOf(requireNonNull(naturalKey, "naturalKey must not be null"));
    if (keySources.contains(KeySource.NATURAL) && naturalKey.isEmpty()) {
      throw new IllegalArgumentException(
          "keySources include NATURAL, so naturalKey must name at least one argument");
    }
    if (!keySources.contains(KeySource.NATURAL) && !naturalKey.isEmpty()) {
      throw new IllegalArgumentException(
          "naturalKey "
              + naturalKey
              + " is given, but keySources "
              + keySources
              + " do not include NATURAL");
    }
    requireNonNull(settings, "settings must not be null");
    if (keyDescription != null && keyDescription.isBlank()) {
      throw new IllegalArgumentException(
          "keyDescription must not be blank; leave it null for" + " the default");
    }
    requireNonNull(inFlight, "inFlight must not be null");
    if (inFlight == InFlight.REFUSE
        && settings.inFlightWait() != null
        && !settings.inFlightWait().isZero()) {
      throw new IllegalArgumentException(
          "inFlight REFUSE answers a duplicate at once, but the settings wait "
              + settings.inFlightWait()
              + " for it; set one of the two");
    }
  }

  /**
   * @return key from the argument {@code idempotency_key} or the meta entry, required
   */
  public static ToolPolicy defaults() {
    return builder().build();
  }

  /**
   * @return a builder with the default values
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * @return a builder with this policy's values, to change some of them
   */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.keySources = keySources;
    b.keyArgument = keyArgument;
    b.naturalKey = naturalKey;
    b.required = required;
    b.keepKeyArgument = keepKeyArgument;
    b.settings(settings);
    b.keyDescription = keyDescription;
    b.inFlight = inFlight;
    return b;
  }

  /**
   * @param idempotent the annotation on a handler method
   * @return the policy it describes
   * @throws IllegalArgumentException naming the attribute that is wrong
   */
  public static ToolPolicy of(Idempotent idempotent) {
    Builder b =
        builder()
            .keySources(idempotent.keySources())
            .keyArgument(idempotent.keyArgument())
            .naturalKey(idempotent.naturalKey())
            .required(idempotent.required())
            .keepKeyArgument(idempotent.keepKeyArgument())
            .inFlight(idempotent.inFlight())
            .settings(settingsOf(idempotent));
    if (!idempotent.keyDescription().isEmpty()) {
      b.keyDescription(idempotent.keyDescription());
    }
    return b.build();
  }

  /**
   * What the annotation sets of the gate's policy: for each {@link GateSettings} component, the
   * attribute of its name, so that no setting is named here. An empty attribute inherits (an empty
   * duration or array, {@link Idempotent#INHERIT}); a string is an ISO-8601 duration.
   */
  private static GateSettings settingsOf(Idempotent idempotent) {
    RecordComponent[] components = GateSettings.class.getRecordComponents();
    Class<?>[] types = new Class<?>[components.length];
    Object[] values = new Object[components.length];
    try {
      for (int i = 0; i < components.length; i++) {
        types[i] = components[i].getType();
        String name = components[i].getName();
        values[i] = setOrInherited(name, Idempotent.class.getMethod(name).invoke(idempotent));
      }
      return GateSettings.class.getConstructor(types).newInstance(values);
    } catch (InvocationTargetException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          "@Idempotent lacks a GateSettings value: " + e.getMessage(), e);
    }
  }

  private static Object setOrInherited(String name, Object value) {
    if (value instanceof String text) {
      return text.isEmpty() ? null : parse(text, name);
    } else if (value instanceof Integer n) {
      return n == Idempotent.INHERIT ? null : n;
    } else if (value instanceof String[] names) {
      return Set.of(names);
    } else if (value instanceof Object[] one) { // an enum: empty, or one value
      if (one.length > 1) {
        throw new IllegalArgumentException(
            "@Idempotent(" + name + " = " + List.of(one) + ") names more than one value");
      }
      return one.length == 0 ? null : one[0];
    }
    throw new IllegalStateException("@Idempotent(" + name + ") has no inherited form: " + value);
  }

  private static Duration parse(String text, String name) {
    try {
      return Duration.parse(text);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "@Idempotent("
              + name
              + " = \""
              + text
              + "\") is not an ISO-8601 duration such as \"PT2H\" or \"PT30S\"",
          e);
    }
  }

  /**
   * A tool's effective policy: the gate's policy with this tool's settings, resolved by {@link
   * GatePolicy#with}, the key argument left out of the hash when it is a key source (else it is the
   * tool's own argument), and {@link InFlight#REFUSE} as an in-flight wait of zero.
   *
   * @param base the gate's policy
   * @return the tool's effective policy
   */
  GatePolicy applyTo(GatePolicy base) {
    GateSettings.Builder b = settings.toBuilder();
    if (inFlight == InFlight.REFUSE) {
      b.inFlightWait(Duration.ZERO); // WAIT keeps the in-flight wait the settings resolve to
    }
    Set<String> ignored = new HashSet<>(settings.ignoredArguments());
    if (takesKeyArgument()) {
      ignored.add(keyArgument);
    }
    return base.with(b.ignoredArguments(ignored).build());
  }

  /**
   * @return true when the key argument is a key source: the gate's, added to the tool's schema,
   *     left out of the hash and (unless kept) of the handler's arguments
   */
  boolean takesKeyArgument() {
    return keySources.contains(KeySource.ARGUMENT);
  }

  /**
   * @return true when the key argument is listed as required in the tool's input schema
   */
  boolean keyArgumentRequiredInSchema() {
    return required && keySources.equals(List.of(KeySource.ARGUMENT));
  }

  /**
   * A mutable builder; {@link #build()} checks the values and names the bad one. The setters of the
   * gate's values ({@code retention(Duration)}, {@code lease(Duration)}, ...) are {@link
   * GateSettings.Setters}'s, the same as {@code GateSettings.builder()}'s; a value left unset is
   * the gate's.
   */
  public static final class Builder extends GateSettings.Setters<Builder> {
    private List<KeySource> keySources = List.of(KeySource.ARGUMENT, KeySource.META);
    private String keyArgument = DEFAULT_KEY_ARGUMENT;
    private List<String> naturalKey = List.of();
    private boolean required = true;
    private boolean keepKeyArgument;
    private String keyDescription;
    private InFlight inFlight = InFlight.WAIT;

    private Builder() {}

    /**
     * @param sources where the key comes from, in order of precedence
     */
    public Builder keySources(KeySource... sources) {
      this.keySources = List.of(requireNonNull(sources, "sources must not be null"));
      return this;
    }

    /**
     * @param name the key argument's name
     */
    public Builder keyArgument(String name) {
      this.keyArgument = requireNonNull(name, "name must not be null");
      return this;
    }

    /**
     * Sets the natural key and adds {@link KeySource#NATURAL} to the sources (last) if missing.
     *
     * @param argumentNames the arguments whose values identify the intent
     */
    public Builder naturalKey(String... argumentNames) {
      this.naturalKey = List.of(requireNonNull(argumentNames, "argumentNames must not be null"));
      if (argumentNames.length > 0 && !keySources.contains(KeySource.NATURAL)) {
        List<KeySource> withNatural = new java.util.ArrayList<>(keySources);
        withNatural.add(KeySource.NATURAL);
        this.keySources = withNatural;
      }
      return this;
    }

    /**
     * @param required false to run calls without a key ungated instead of refusing them
     */
    public Builder required(boolean required) {
      this.required = required;
      return this;
    }

    /**
     * @param keep true to pass the key argument on to the handler
     */
    public Builder keepKeyArgument(boolean keep) {
      this.keepKeyArgument = keep;
      return this;
    }

    /**
     * @param description what the key argument means, when it is not a fresh value per request (see
     *     {@link ToolPolicy#keyDescription()})
     */
    public Builder keyDescription(String description) {
      this.keyDescription = requireNonNull(description, "description must not be null");
      return this;
    }

    /**
     * @param inFlight {@link InFlight#REFUSE} to refuse a duplicate of a running call at once
     *     (SEP-3182's choice); {@link InFlight#WAIT}, the default, waits the gate's in-flight wait
     *     for its result
     */
    public Builder inFlight(InFlight inFlight) {
      this.inFlight = requireNonNull(inFlight, "inFlight must not be null");
      return this;
    }

    /**
     * @return the policy
     */
    public ToolPolicy build() {
      return new ToolPolicy(
          keySources,
          keyArgument,
          naturalKey,
          required,
          keepKeyArgument,
          settingsSet(),
          keyDescription,
          inFlight);
    }
  }
}
