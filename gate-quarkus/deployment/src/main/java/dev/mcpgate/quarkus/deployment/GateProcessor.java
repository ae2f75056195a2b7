package dev.mcpgate.quarkus.deployment;

import dev.mcpgate.mcp.Idempotent;
import dev.mcpgate.mcp.KeySource;
import dev.mcpgate.quarkus.internal.AttemptWatch;
import dev.mcpgate.quarkus.internal.CallTenant;
import dev.mcpgate.quarkus.internal.CallerTransaction;
import dev.mcpgate.quarkus.internal.CurrentCall;
import dev.mcpgate.quarkus.internal.GateBeans;
import dev.mcpgate.quarkus.internal.GateInterceptor;
import dev.mcpgate.quarkus.internal.GateRecorder;
import dev.mcpgate.quarkus.internal.Gated;
import dev.mcpgate.quarkus.internal.GatedTools;
import dev.mcpgate.quarkus.internal.InFlightCalls;
import dev.mcpgate.quarkus.internal.MicrometerMetrics;
import dev.mcpgate.quarkus.internal.ToolSecurity;
import dev.mcpgate.quarkus.internal.TransactionEnd;
import io.quarkus.arc.deployment.AdditionalBeanBuildItem;
import io.quarkus.arc.deployment.AnnotationsTransformerBuildItem;
import io.quarkus.arc.deployment.SyntheticBeanBuildItem;
import io.quarkus.bootstrap.classloading.QuarkusClassLoader;
import io.quarkus.deployment.Capabilities;
import io.quarkus.deployment.Capability;
import io.quarkus.deployment.annotations.BuildProducer;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.annotations.ExecutionTime;
import io.quarkus.deployment.annotations.Record;
import io.quarkus.deployment.builditem.CombinedIndexBuildItem;
import io.quarkus.deployment.builditem.FeatureBuildItem;
import io.quarkus.deployment.metrics.MetricsCapabilityBuildItem;
import io.quarkus.runtime.metrics.MetricsFactory;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jboss.jandex.AnnotationInstance;
import org.jboss.jandex.AnnotationTarget;
import org.jboss.jandex.AnnotationTransformation;
import org.jboss.jandex.AnnotationValue;
import org.jboss.jandex.DotName;
import org.jboss.jandex.IndexView;
import org.jboss.jandex.MethodInfo;
import org.jboss.jandex.MethodParameterInfo;
import org.jboss.logging.Logger;

/**
 * Binds the gate to each {@code @Tool} method with {@code @Idempotent}, after checking that it can
 * be gated as declared (else the build fails, naming every problem), and reports the write tools
 * that are neither gated nor marked read-only or idempotent.
 */
class GateProcessor {
  private static final Logger LOG = Logger.getLogger(GateProcessor.class);
  private static final String MCP = "io.quarkiverse.mcp.server.";
  private static final String MCP_HTTP_TRANSPORT = MCP + "http.runtime.HttpMcpServerRecorder";
  private static final DotName TOOL = DotName.createSimple(MCP + "Tool");
  private static final DotName TOOL_ARG = DotName.createSimple(MCP + "ToolArg");
  private static final DotName TOOL_RESPONSE = DotName.createSimple(MCP + "ToolResponse");
  private static final DotName META = DotName.createSimple(MCP + "Meta");
  private static final DotName IDEMPOTENT = DotName.createSimple(Idempotent.class);
  private static final DotName NON_BLOCKING =
      DotName.createSimple("io.smallrye.common.annotation.NonBlocking");

  /** Parameter types the extension injects: not tool arguments. */
  private static final Set<DotName> INJECTED =
      Stream.of(
              ("Meta McpConnection McpLog RequestId RequestUri Progress Roots Sampling Cancellation"
                      + " RawMessage CompleteContext Elicitation")
                  .split(" "))
          .map(type -> DotName.createSimple(MCP + type))
          .collect(Collectors.toUnmodifiableSet());

  @BuildStep
  FeatureBuildItem feature() {
    return new FeatureBuildItem("mcpgate");
  }

  @BuildStep
  AdditionalBeanBuildItem beans() {
    return AdditionalBeanBuildItem.builder()
        .addBeanClasses(
            GateBeans.class,
            CallTenant.class,
            CurrentCall.class,
            CurrentCall.Capture.class,
            InFlightCalls.class,
            GateInterceptor.class,
            AttemptWatch.class,
            ToolSecurity.class,
            Gated.class)
        .setUnremovable()
        .build();
  }

  @BuildStep
  void transactions(Capabilities capabilities, BuildProducer<AdditionalBeanBuildItem> beans) {
    if (capabilities.isPresent(Capability.TRANSACTIONS)) {
      beans.produce(AdditionalBeanBuildItem.unremovableOf(TransactionEnd.class));
      beans.produce(AdditionalBeanBuildItem.unremovableOf(CallerTransaction.class));
    }
  }

  @BuildStep
  void metrics(
      Optional<MetricsCapabilityBuildItem> metrics, BuildProducer<AdditionalBeanBuildItem> beans) {
    if (metrics.isPresent() && metrics.get().metricsSupported(MetricsFactory.MICROMETER)) {
      beans.produce(AdditionalBeanBuildItem.unremovableOf(MicrometerMetrics.class));
    }
  }

  @BuildStep
  AnnotationsTransformerBuildItem bindGate() {
    return new AnnotationsTransformerBuildItem(
        AnnotationTransformation.forMethods()
            .when(t -> t.hasAnnotation(IDEMPOTENT) && t.hasAnnotation(TOOL))
            .transform(t -> t.add(Gated.class)));
  }

  @BuildStep
  @Record(ExecutionTime.STATIC_INIT)
  SyntheticBeanBuildItem gatedTools(CombinedIndexBuildItem combined, GateRecorder recorder) {
    IndexView index = combined.getIndex();
    // the MCP server's HTTP transport (Streamable HTTP, HTTP+SSE), not any Vert.x HTTP (a REST or
    // WebSocket-only application has that too, and no header reaches a tool call through it)
    boolean http = QuarkusClassLoader.isClassPresentAtRuntime(MCP_HTTP_TRANSPORT);
    List<String> lines = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    List<String> survey = new ArrayList<>();
    List<String> keyUnserved = new ArrayList<>();
    List<MethodInfo> tools =
        index.getAnnotations(TOOL).stream()
            .filter(a -> a.target().kind() == AnnotationTarget.Kind.METHOD)
            .map(a -> a.target().asMethod())
            .sorted(Comparator.comparing(m -> m.declaringClass().name() + "#" + m.name()))
            .toList();
    for (MethodInfo method : tools) {
      AnnotationInstance tool = method.annotation(TOOL);
      String name = tool.value("name") == null ? method.name() : tool.value("name").asString();
      AnnotationInstance hints =
          tool.value("annotations") == null ? null : tool.value("annotations").asNested();
      boolean readOnly = flag(hints, "readOnlyHint");
      boolean idempotent = flag(hints, "idempotentHint");
      AnnotationInstance gated = method.annotation(IDEMPOTENT);
      if (gated == null) {
        if (!readOnly) {
          survey.add(
              idempotent
                  ? "  " + name + ": declared safe (idempotentHint=true), not gated"
                  : "  " + name + ": a write tool, NOT gated (no @Idempotent, not read-only)");
        }
        continue;
      }
      List<String> arguments = arguments(method);
      check(method, name, gated, arguments, readOnly, idempotent, http, problems);
      KeySourceCheck.requiredKey(method, name, gated).ifPresent(keyUnserved::add);
      List<String> types = new ArrayList<>();
      for (int i = 0; i < method.parametersCount(); i++) {
        types.add(method.parameterType(i).name().toString());
      }
      String description =
          tool.value("description") == null ? "" : tool.value("description").asString();
      lines.add(
          GatedTools.line(
              method.declaringClass().name().toString(),
              method.name(),
              types,
              name,
              description,
              arguments));
    }
    for (AnnotationInstance a : index.getAnnotations(IDEMPOTENT)) {
      if (a.target().kind() == AnnotationTarget.Kind.METHOD
          && a.target().asMethod().annotation(TOOL) == null) {
        MethodInfo m = a.target().asMethod();
        problems.add(
            m.declaringClass().name()
                + "#"
                + m.name()
                + ": @Idempotent on a method that is not a @Tool; gate-quarkus gates @Tool"
                + " methods");
      }
    }
    if (!problems.isEmpty()) {
      throw new IllegalStateException(
          "MCP Gate cannot gate these tools as declared:\n  " + String.join("\n  ", problems));
    }
    if (!survey.isEmpty()) {
      LOG.warnf(
          "MCP Gate: write tools that a retried call runs again (gate them with @Idempotent, or"
              + " mark them @Tool(annotations = @Tool.Annotations(readOnlyHint = true)) if they"
              + " write nothing):%n%s",
          String.join("\n", survey));
    }
    if (!keyUnserved.isEmpty()) {
      LOG.warnf("MCP Gate: key sources that never serve:%n%s", String.join("\n", keyUnserved));
    }
    LOG.debugf("MCP Gate: %d gated tools", lines.size());
    return SyntheticBeanBuildItem.configure(GatedTools.class)
        .scope(Singleton.class)
        .unremovable()
        .supplier(recorder.gatedTools(lines))
        .done();
  }

  /**
   * @return per parameter: the tool argument's name, null for what the extension injects, {@link
   *     GatedTools#metaParameter()} for the request's {@code _meta}
   */
  private static List<String> arguments(MethodInfo method) {
    List<String> names = new ArrayList<>();
    for (MethodParameterInfo p : method.parameters()) {
      DotName type = p.type().name();
      if (type.equals(META)) {
        names.add(GatedTools.metaParameter());
      } else if (INJECTED.contains(type)) {
        names.add(null);
      } else {
        AnnotationInstance arg = p.annotation(TOOL_ARG);
        AnnotationValue argName = arg == null ? null : arg.value("name");
        names.add(argName == null ? p.name() : argName.asString());
      }
    }
    return names;
  }

  static void check(
      MethodInfo method,
      String tool,
      AnnotationInstance gated,
      List<String> arguments,
      boolean readOnly,
      boolean idempotentHint,
      boolean http,
      List<String> problems) {
    String where =
        "tool " + tool + " (" + method.declaringClass().name() + "#" + method.name() + ")";
    if (!method.returnType().name().equals(TOOL_RESPONSE)) {
      problems.add(
          where
              + ": a gated tool returns ToolResponse (its replays and refusals are ToolResponses),"
              + " not "
              + method.returnType().name());
    }
    // on the method, or on its class (hasAnnotation would also find it on the class's other
    // methods)
    if (method.hasDeclaredAnnotation(NON_BLOCKING)
        || method.declaringClass().hasDeclaredAnnotation(NON_BLOCKING)) {
      problems.add(
          where
              + ": a gated tool waits on its store (and on a duplicate in flight), so it cannot run"
              + " on the event loop; remove @NonBlocking");
    }
    if (readOnly) {
      problems.add(
          where
              + ": @Idempotent on a tool marked readOnlyHint=true; read-only tools are"
              + " not gated");
    }
    if (!idempotentHint) {
      problems.add(
          where
              + ": a gated tool tells clients so; add"
              + " annotations = @Tool.Annotations(idempotentHint = true) to its @Tool");
    }
    List<String> sources = KeySourceCheck.sources(gated);
    if (sources.contains(KeySource.HEADER.name()) && !http) {
      problems.add(
          where
              + ": keySources names HEADER, but the application has no HTTP transport"
              + " (quarkus-mcp-server-http), so no header ever reaches the gate; add it, or take"
              + " the key from the argument or _meta (KeySource.ARGUMENT, KeySource.META)");
    }
    AnnotationValue ownName = gated.value("tool");
    if (ownName != null && !ownName.asString().isEmpty() && !ownName.asString().equals(tool)) {
      problems.add(
          where
              + ": @Idempotent(tool = \""
              + ownName.asString()
              + "\") names another tool than its @Tool, which the MCP server serves it as, and"
              + " the gate keys its calls by; remove tool from @Idempotent, or name the same tool");
    }
    if (gated.value("keyDescription") != null) {
      problems.add(
          where
              + ": @Idempotent(keyDescription) is not used here: the MCP server writes the tool's"
              + " definition from the method; write the key's description in its @ToolArg"
              + " (description = \"...\")");
    }
    String keyArgument = KeySourceCheck.keyArgument(gated);
    if (sources.contains(KeySource.ARGUMENT.name()) && !arguments.contains(keyArgument)) {
      problems.add(
          where
              + ": its key argument "
              + keyArgument
              + " is not one of its arguments "
              + named(arguments)
              + "; declare it (@ToolArg(name = \""
              + keyArgument
              + "\", required = false) String idempotencyKey), or take the key from _meta only"
              + " (keySources = KeySource.META)");
    }
    Map<String, String> defaults = defaultValues(method);
    if (sources.contains(KeySource.ARGUMENT.name()) && defaults.containsKey(keyArgument)) {
      problems.add(
          where
              + ": its key argument "
              + keyArgument
              + (defaults.get(keyArgument).isEmpty()
                  ? " has defaultValue = \"\", which the MCP server passes for a call without it:"
                      + " such a call is refused for an empty key, or for two different keys when"
                      + " it sends one in _meta or a header"
                  : " has a defaultValue (\""
                      + defaults.get(keyArgument)
                      + "\"), so a call without a key would be gated under that one shared key"
                      + " and a later, separate call answered as a replay of the first")
              + "; remove the defaultValue (a call without a key is then refused,"
              + " idempotency_key_required)");
    }
    if (gated.value("naturalKey") != null) {
      for (String natural : gated.value("naturalKey").asStringArray()) {
        if (defaults.containsKey(natural)) {
          problems.add(
              where
                  + ": its natural key argument "
                  + natural
                  + " has a defaultValue (\""
                  + defaults.get(natural)
                  + "\"), so calls without it would share one key; remove the defaultValue");
        }
        if (!arguments.contains(natural)) {
          problems.add(
              where
                  + ": its natural key names "
                  + natural
                  + ", which is not one of its arguments "
                  + named(arguments));
        }
      }
    }
  }

  /**
   * @return by tool argument name, the {@code defaultValue} of each {@code @ToolArg} that sets one,
   *     even to {@code ""}
   */
  private static Map<String, String> defaultValues(MethodInfo method) {
    Map<String, String> defaults = new LinkedHashMap<>();
    for (MethodParameterInfo p : method.parameters()) {
      AnnotationInstance arg = p.annotation(TOOL_ARG);
      AnnotationValue value = arg == null ? null : arg.value("defaultValue");
      if (value != null) { // an explicit "" too: the MCP server passes it for a missing argument
        AnnotationValue argName = arg.value("name");
        defaults.put(argName == null ? p.name() : argName.asString(), value.asString());
      }
    }
    return defaults;
  }

  private static List<String> named(List<String> arguments) {
    return arguments.stream()
        .filter(a -> a != null && !a.equals(GatedTools.metaParameter()))
        .toList();
  }

  private static boolean flag(AnnotationInstance hints, String name) {
    return hints != null && hints.value(name) != null && hints.value(name).asBoolean();
  }
}
