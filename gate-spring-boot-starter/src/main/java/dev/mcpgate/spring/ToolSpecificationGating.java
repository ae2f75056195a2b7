package dev.mcpgate.spring;

import dev.mcpgate.mcp.KeySource;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.McpGateErrors;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.util.ClassUtils;

/**
 * Gates the tool specifications that Spring AI makes from {@code @McpTool} methods (and from tool
 * callbacks): every bean that is a list of sync, async or stateless tool specifications is
 * replaced, after it is made and before the MCP server takes it, by the same list with each
 * {@code @Idempotent} tool wrapped by the {@link McpGate}. Spring AI's single server customizer
 * slot stays free; the tool beans themselves are left as they are (a {@code @Transactional} proxy
 * works, its target's annotations are found).
 *
 * <p>Once every singleton is made, it surveys the tools it saw: a tool that changes state (no
 * {@code readOnlyHint}) and is neither gated nor listed in {@code mcpgate.safe-tools} is logged,
 * one line per tool; with {@code mcpgate.require-gated-writes=true} startup fails instead.
 */
final class ToolSpecificationGating
    implements BeanPostProcessor, BeanFactoryAware, SmartInitializingSingleton {
  private static final Logger LOG = LoggerFactory.getLogger(ToolSpecificationGating.class);

  private final ObjectProvider<McpGate> gate;
  private final ObjectProvider<McpGateProperties> properties;
  private ListableBeanFactory beans;
  private Map<String, ToolPolicy> policies;
  private Set<String> unseenTools; // found once, by unseen
  private final List<Class<?>> toolTypes = new ArrayList<>(); // with @Idempotent, by policies
  private final Map<String, Boolean> seen = new LinkedHashMap<>(); // tool -> gated
  private final Set<String> readOnly = new LinkedHashSet<>();
  private final Set<String> takeDecimals = new LinkedHashSet<>(); // gated tools with a number
  // MCP transports over HTTP whose context extractor could not be wrapped to capture the
  // caller's identity (every one on WebMVC, where the identity is read on the request thread)
  private final Set<String> opaqueTransports = new LinkedHashSet<>();
  private volatile boolean syncTools;
  private volatile boolean keyHeaderCarried; // a transport puts Idempotency-Key in the context
  private final Set<String> headerKeyOnly = new LinkedHashSet<>(); // gated tools keyed by it alone

  /** Spring MVC's functional endpoints are there, on which Spring AI's WebMVC transports run. */
  private static final boolean SERVLET_WEB =
      ClassUtils.isPresent(
          "org.springframework.web.servlet.function.ServerRequest",
          ToolSpecificationGating.class.getClassLoader());

  /** WebFlux is there: the classes the WebFlux configuration is conditional on, read from it. */
  private static final boolean REACTIVE_WEB =
      java.util.Arrays.stream(
              McpGateAutoConfiguration.WebFluxIdentityConfiguration.class
                  .getAnnotation(ConditionalOnClass.class)
                  .name())
          .allMatch(c -> ClassUtils.isPresent(c, ToolSpecificationGating.class.getClassLoader()));

  ToolSpecificationGating(
      ObjectProvider<McpGate> gate, ObjectProvider<McpGateProperties> properties) {
    this.gate = gate;
    this.properties = properties;
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    this.beans = (ListableBeanFactory) beanFactory;
  }

  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    if (ServerJson.BEAN.equals(beanName) && properties.getObject().isExactNumbers()) {
      return ServerJson.exact(bean);
    }
    if (isHttpTransport(bean)) {
      boolean captured = REACTIVE_WEB && WebFluxIdentity.install(bean, tenantHeader());
      if (!captured) {
        synchronized (seen) {
          opaqueTransports.add(bean.getClass().getName());
        }
      }
      if (captured || SERVLET_WEB && WebMvcKeyHeader.install(bean)) {
        keyHeaderCarried = true;
      }
      return bean;
    }
    if (!(bean instanceof List<?> list) || list.isEmpty()) {
      return bean;
    }
    Object first = list.get(0);
    if (first instanceof McpServerFeatures.SyncToolSpecification) {
      syncTools = true;
      return gateAll(
          list,
          McpServerFeatures.SyncToolSpecification.class,
          McpServerFeatures.SyncToolSpecification::tool,
          McpServerFeatures.SyncToolSpecification::callHandler,
          (s, p) -> gate.getObject().gate(exceptions().seen(s, unseen(s.tool())), p));
    }
    if (first instanceof McpServerFeatures.AsyncToolSpecification) {
      return gateAll(
          list,
          McpServerFeatures.AsyncToolSpecification.class,
          McpServerFeatures.AsyncToolSpecification::tool,
          McpServerFeatures.AsyncToolSpecification::callHandler,
          (s, p) -> gate.getObject().gate(exceptions().seen(s, unseen(s.tool())), p));
    }
    if (first instanceof McpStatelessServerFeatures.SyncToolSpecification) {
      syncTools = true;
      return gateAll(
          list,
          McpStatelessServerFeatures.SyncToolSpecification.class,
          McpStatelessServerFeatures.SyncToolSpecification::tool,
          McpStatelessServerFeatures.SyncToolSpecification::callHandler,
          (s, p) -> gate.getObject().gate(exceptions().seen(s, unseen(s.tool())), p));
    }
    if (first instanceof McpStatelessServerFeatures.AsyncToolSpecification) {
      return gateAll(
          list,
          McpStatelessServerFeatures.AsyncToolSpecification.class,
          McpStatelessServerFeatures.AsyncToolSpecification::tool,
          McpStatelessServerFeatures.AsyncToolSpecification::callHandler,
          (s, p) -> gate.getObject().gate(exceptions().seen(s, unseen(s.tool())), p));
    }
    return bean;
  }

  private <S> List<S> gateAll(
      List<?> list,
      Class<S> type,
      Function<S, McpSchema.Tool> tool,
      Function<S, Object> handler,
      BiFunction<S, ToolPolicy, S> wrap) {
    Map<String, ToolPolicy> byTool = policies();
    List<S> out = new ArrayList<>(list.size());
    for (Object element : list) {
      S spec = type.cast(element);
      McpSchema.Tool t = tool.apply(spec);
      // gated already by the application through the McpGate bean (the transactional and
      // single-commit modes): counted as gated, never wrapped twice
      boolean gated =
          t.meta() != null
              && t.meta().containsKey(McpGateErrors.META_TOOL)
              && isAdapters(handler.apply(spec));
      ToolPolicy policy = gated ? null : byTool.get(t.name());
      boolean ro = t.annotations() != null && Boolean.TRUE.equals(t.annotations().readOnlyHint());
      if (ro) {
        readOnly.add(t.name());
      }
      synchronized (seen) {
        seen.put(t.name(), gated || policy != null && !ro);
        if ((gated || policy != null) && !ro && takesDecimals(t)) {
          takeDecimals.add(t.name());
        }
        if (policy != null && !ro && List.of(KeySource.HEADER).equals(policy.keySources())) {
          headerKeyOnly.add(t.name());
        }
      }
      out.add(policy == null ? spec : wrap.apply(spec, policy));
    }
    return out;
  }

  /**
   * @return true for a tool whose Spring AI callback calls an object that is not proxied ({@link
   *     UnseenToolObjects}, found once)
   */
  private synchronized boolean unseen(McpSchema.Tool tool) {
    if (unseenTools == null) {
      policies(); // finds the tool types
      unseenTools = UnseenToolObjects.in(beans, toolTypes);
    }
    return unseenTools.contains(tool.name());
  }

  /** The proxies of {@code @Idempotent} tool beans, by the name the auto-configuration gives. */
  private ToolExceptions exceptions() {
    return beans.getBean(ToolExceptions.BEAN, ToolExceptions.class);
  }

  /**
   * @return true for a handler the MCP adapter made (a gated one): a tool definition copied with
   *     the adapter's mark onto a handler of the application's own is not gated
   */
  private static boolean isAdapters(Object handler) {
    return handler != null
        && handler.getClass().getName().startsWith(McpGate.class.getPackageName() + ".");
  }

  /**
   * @return the tenant header ({@code mcpgate.tenant.header}), or null
   */
  private String tenantHeader() {
    String header = properties.getObject().getTenant().getHeader();
    return header == null || header.isBlank() ? null : header.trim();
  }

  /**
   * @return true for an MCP server transport that serves HTTP requests (not stdio)
   */
  private static boolean isHttpTransport(Object bean) {
    return (bean instanceof io.modelcontextprotocol.spec.McpServerTransportProviderBase
            || bean instanceof io.modelcontextprotocol.spec.McpStatelessServerTransport)
        && !(bean instanceof io.modelcontextprotocol.server.transport.StdioServerTransportProvider);
  }

  /**
   * On WebFlux, a sync tool runs off the request: its tenant can be read only from what the
   * transport's context extractor captured ({@link WebFluxIdentity}). When a transport's extractor
   * could not be wrapped (a transport of another kind, a Spring AI whose transport keeps it
   * elsewhere) and the tenant comes first from the principal or a header, every call to a gated
   * sync tool would be refused {@code tenant_unknown}: the server refuses to start instead, and
   * says what works.
   */
  private void refuseSyncToolsThatCannotBeGated() {
    boolean gatedSync;
    List<String> opaque;
    synchronized (seen) {
      gatedSync = syncTools && seen.containsValue(true);
      opaque = new ArrayList<>(opaqueTransports);
    }
    if (!gatedSync
        || opaque.isEmpty()
        || !REACTIVE_WEB
        || beans.getBeanNamesForType(WebFluxIdentity.CaptureFilter.class, false, false).length
            == 0) {
      return;
    }
    if (!(beans.getBeanProvider(dev.mcpgate.mcp.TenantResolver.class).getIfUnique()
            instanceof SpringTenantResolver resolver)
        || resolver.sources().isEmpty()
        || resolver.sources().get(0) == McpGateProperties.Tenant.Source.CONSTANT) {
      return;
    }
    throw new StartupFailure(
        "MCP Gate cannot gate the sync tools of this WebFlux server: they run off the request,"
            + " and the MCP transport "
            + opaque
            + " has no context extractor the starter can wrap to carry the caller's identity"
            + " (the tenant source "
            + resolver.sources().get(0).name().toLowerCase(java.util.Locale.ROOT)
            + "), so every call to a gated tool would be refused with tenant_unknown.",
        "Set spring.ai.mcp.server.type=ASYNC (async tools read the principal and the exchange"
            + " from the request's Reactor context), or declare a TenantResolver bean that reads"
            + " what your transport's context extractor puts in the McpTransportContext.",
        null);
  }

  /**
   * A tool keyed by the {@code Idempotency-Key} header alone, on a server none of whose transports
   * carries the header into the call's context (stdio; an HTTP transport whose extractor the
   * starter cannot wrap), would refuse every call {@code idempotency_key_required}: the server
   * refuses to start instead, naming the tools.
   */
  private void refuseHeaderKeysNoTransportCarries() {
    List<String> tools;
    synchronized (seen) {
      tools = new ArrayList<>(headerKeyOnly);
    }
    if (tools.isEmpty() || keyHeaderCarried) {
      return;
    }
    throw new StartupFailure(
        "MCP Gate cannot gate the tools "
            + tools
            + ": their key comes from the Idempotency-Key HTTP header alone, and no MCP"
            + " transport of this server carries that header into a call (stdio carries no"
            + " headers), so every call would be refused with idempotency_key_required.",
        "Let the key come from an argument or _meta too (@Idempotent(keySources = {HEADER,"
            + " ARGUMENT}), or mcpgate.key-sources), or serve the tools over Spring AI's"
            + " Streamable HTTP, SSE or stateless transport.",
        null);
  }

  /**
   * @return true when a parameter of the tool is a JSON {@code number} (not only integers)
   */
  private static boolean takesDecimals(McpSchema.Tool tool) {
    Object properties = tool.inputSchema() == null ? null : tool.inputSchema().get("properties");
    if (!(properties instanceof Map<?, ?> byName)) {
      return false;
    }
    for (Object property : byName.values()) {
      if (property instanceof Map<?, ?> schema) {
        Object type = schema.get("type");
        if ("number".equals(type) || (type instanceof List<?> types && types.contains("number"))) {
          return true;
        }
      }
    }
    return false;
  }

  /** The policies of every bean class with {@code @Idempotent} methods, found once. */
  private synchronized Map<String, ToolPolicy> policies() {
    if (policies == null) {
      List<Class<?>> types = toolTypes;
      for (String name : beans.getBeanDefinitionNames()) {
        Class<?> type = beans.getType(name, false);
        if (type != null) {
          Class<?> user = ClassUtils.getUserClass(type);
          if (!types.contains(user) && McpGate.hasIdempotentMethods(user)) {
            types.add(user);
          }
        }
      }
      Map<String, ToolPolicy> found =
          types.isEmpty() ? Map.of() : McpGate.annotatedPolicies(types.toArray(Class<?>[]::new));
      List<KeySource> sources = properties.getObject().getKeySources();
      policies = new LinkedHashMap<>();
      found.forEach((tool, p) -> policies.put(tool, withDefaultKeySources(p, sources)));
    }
    return policies;
  }

  /** The policy, with {@code mcpgate.key-sources} where the annotation left the default. */
  private static ToolPolicy withDefaultKeySources(ToolPolicy p, List<KeySource> sources) {
    if (sources == null
        || sources.isEmpty()
        || !p.keySources().equals(ToolPolicy.defaults().keySources())) {
      return p;
    }
    return p.toBuilder().keySources(sources.toArray(KeySource[]::new)).build();
  }

  @Override
  public void afterSingletonsInstantiated() {
    refuseHeaderKeysNoTransportCarries();
    McpGateProperties props = properties.getObject();
    List<String> ungated = new ArrayList<>();
    synchronized (seen) {
      seen.forEach(
          (tool, gated) -> {
            if (!gated && !readOnly.contains(tool) && !props.getSafeTools().contains(tool)) {
              ungated.add(tool);
            }
          });
    }
    for (String tool : ungated) {
      LOG.warn(
          "MCP tool {} changes state (it has no readOnlyHint) but is not gated: a retried"
              + " call runs it again. Put @Idempotent on its handler, or list it in"
              + " mcpgate.safe-tools if running it twice is harmless.",
          tool);
    }
    Set<String> missing = new LinkedHashSet<>(policies().keySet());
    missing.removeAll(seen.keySet());
    for (String tool : missing) {
      LOG.warn(
          "@Idempotent names the tool {}, but no tool specification of that name was seen:"
              + " nothing is gated for it",
          tool);
    }
    Set<String> decimals;
    synchronized (seen) {
      decimals = new LinkedHashSet<>(takeDecimals);
    }
    if (!decimals.isEmpty()
        && ServerJson.serverReadsExactly(beans).equals(java.util.Optional.of(false))) {
      LOG.warn(
          "The gated tools {} take decimal numbers, and Spring AI's MCP server reads them as"
              + " double, which no hash can tell apart from nearby numbers (9007199254740993.0"
              + " and 9007199254740992.0 arrive alike): a call with a decimal argument is refused"
              + " (arguments_invalid, nothing run). Set mcpgate.exact-numbers=true to make the"
              + " server read decimals exactly.",
          decimals);
    }
    refuseSyncToolsThatCannotBeGated();
    LOG.info(
        "MCP Gate: {} tools seen, {} gated, {} read-only, {} declared safe, {} ungated" + " writes",
        seen.size(),
        seen.values().stream().filter(g -> g).count(),
        readOnly.size(),
        props.getSafeTools().size(),
        ungated.size());
    if (props.isRequireGatedWrites() && !ungated.isEmpty()) {
      throw new IllegalStateException(
          "mcpgate.require-gated-writes is true, and these write"
              + " tools are neither gated nor listed in mcpgate.safe-tools: "
              + ungated);
    }
  }
}
