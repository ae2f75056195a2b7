package dev.mcpgate.spring;

import dev.mcpgate.core.GateListener;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.Slf4jGateListener;
import dev.mcpgate.core.audit.AuditSink;
import dev.mcpgate.core.purge.ClaimPurger;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.TenantResolver;
import java.time.Duration;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Gates the {@code @Idempotent} tools of a Spring AI MCP server with no code: the store comes from
 * the application's DataSource (or DynamoDbClient, or memory when {@code mcpgate.store=memory}),
 * the policy from {@code mcpgate.*}, the tenant from Spring Security's principal, a header or a
 * constant. Each bean can be replaced by declaring one of the same type.
 */
@AutoConfiguration(
    beforeName = {
      "org.springframework.ai.mcp.server.common.autoconfigure.McpServerAutoConfiguration",
      "org.springframework.ai.mcp.server.common.autoconfigure.McpServerStatelessAutoConfiguration"
    })
@ConditionalOnClass(McpGate.class)
@ConditionalOnProperty(
    prefix = "mcpgate",
    name = "enabled",
    havingValue = "true",
    matchIfMissing = true)
@EnableConfigurationProperties(McpGateProperties.class)
public class McpGateAutoConfiguration {

  /**
   * @return a check, run before any bean is made, that stops the startup on a Spring Boot or Spring
   *     AI line the starter does not support (see {@link SupportedStack})
   */
  @Bean
  public static BeanFactoryPostProcessor mcpGateSupportedStack() {
    return factory ->
        SupportedStack.check(
            SpringBootVersion.getVersion(), McpGateAutoConfiguration.class.getClassLoader());
  }

  /**
   * @return the store: the application's own, made from its DataSource or DynamoDbClient
   */
  @Bean
  @ConditionalOnMissingBean
  public IdempotencyStore mcpGateStore(McpGateProperties props, ListableBeanFactory beans) {
    IdempotencyStore store = StoreFactory.create(props, beans);
    StoreFactory.verify(store, props); // fail fast: the table is there (or created) now
    return store;
  }

  /**
   * @return the gate, with the policy of {@code mcpgate.*}, a log of its decisions, every {@link
   *     GateListener} bean, and, with gate-micrometer on the class path, metrics and observation
   *     attributes on the application's registries
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public IdempotencyGate mcpIdempotencyGate(
      IdempotencyStore store,
      Environment environment,
      ObjectProvider<GateListener> listeners,
      ListableBeanFactory beans) {
    boolean micrometer = micrometer();
    IdempotencyGate.Builder b =
        IdempotencyGate.builder(micrometer ? MicrometerListeners.timed(store, beans) : store)
            .policy(McpGateProperties.policy(Binder.get(environment)))
            .listener(new Slf4jGateListener());
    Binder.get(environment)
        .bind("mcpgate.shutdown.drain-timeout", Duration.class)
        .ifBound(b::drainTimeout);
    listeners.orderedStream().forEach(b::listener);
    if (micrometer) {
      MicrometerListeners.add(b, beans, store);
    }
    return b.build();
  }

  /**
   * @return the scheduled purge of expired claims of a JDBC store, on a daemon thread of its own
   *     ({@code mcpgate.purge.*}); stopped when the context closes
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnProperty(
      prefix = "mcpgate.purge",
      name = "enabled",
      havingValue = "true",
      matchIfMissing = true)
  @ConditionalOnClass(name = "dev.mcpgate.jdbc.JdbcIdempotencyStore")
  public ClaimPurger mcpGateClaimPurger(
      IdempotencyStore store, McpGateProperties props, ListableBeanFactory beans) {
    if (!StoreFactory.isJdbc(store)) {
      return null;
    }
    McpGateProperties.Purge purge = props.getPurge();
    return ClaimPurger.start(
        micrometer() ? MicrometerListeners.timed(store, beans) : store,
        purge.getInterval(),
        purge.getBatchSize());
  }

  /**
   * @return true when gate-micrometer is on the class path
   */
  private static boolean micrometer() {
    return ClassUtils.isPresent(
        "dev.mcpgate.micrometer.GateMetrics", McpGateAutoConfiguration.class.getClassLoader());
  }

  /**
   * @return where the tenant of a call comes from: principal, header, constant, or refused
   */
  @Bean
  @ConditionalOnMissingBean
  public TenantResolver mcpGateTenantResolver(McpGateProperties props) {
    return new SpringTenantResolver(props.getTenant());
  }

  /**
   * @return the MCP adapter over the gate, writing to the {@link AuditSink} bean if there is one
   *     (with {@code mcpgate.audit.enabled=true} and gate-jdbc, a table sink on the DataSource)
   */
  @Bean
  @ConditionalOnMissingBean
  public McpGate mcpGate(
      IdempotencyGate gate,
      TenantResolver tenants,
      ObjectProvider<AuditSink> audit,
      ListableBeanFactory beans) {
    McpGate.Builder b = McpGate.builder(gate).tenantResolver(tenants);
    // the gate keeps results with a mapper that reads numbers exactly; whether the server reads
    // the arguments exactly is Spring AI's mapper's business, checked by the startup survey
    // against the gated tools' parameters (mcpgate.exact-numbers sets it)
    ServerJson.gateMapper(beans).ifPresent(b::jsonMapper);
    audit.ifAvailable(b::audit);
    return b.build();
  }

  /**
   * @return the audit table sink, on the application's DataSource; closed with the context
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean(AuditSink.class)
  @ConditionalOnProperty(prefix = "mcpgate.audit", name = "enabled", havingValue = "true")
  @ConditionalOnClass(name = "dev.mcpgate.jdbc.JdbcAuditSink")
  public AuditSink mcpGateAuditSink(McpGateProperties props, ListableBeanFactory beans) {
    return StoreFactory.auditSink(props, beans);
  }

  /**
   * On WebFlux: captures the caller's identity where the request arrives, for the tools that run
   * off it ({@link WebFluxIdentity}). Its {@code @ConditionalOnClass} is also how {@link
   * ToolSpecificationGating} tells that WebFlux is there.
   */
  @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
  @org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication(
      type =
          org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type
              .REACTIVE)
  @ConditionalOnClass(
      name = {
        "org.springframework.web.server.WebFilter",
        "org.springframework.web.reactive.function.server.ServerRequest"
      })
  static class WebFluxIdentityConfiguration {
    /**
     * @return the filter that keeps the principal Spring Security authenticated in the exchange,
     *     where the MCP transport's context extractor reads it
     */
    @Bean
    WebFluxIdentity.CaptureFilter mcpGateIdentityCaptureFilter() {
      return new WebFluxIdentity.CaptureFilter();
    }
  }

  /**
   * @return the post-processor that gates the tool specification lists before the MCP server takes
   *     them, and surveys the write tools at startup
   */
  @Bean
  public static BeanPostProcessor mcpGateToolSpecificationGating(
      ObjectProvider<McpGate> gate, ObjectProvider<McpGateProperties> props) {
    return new ToolSpecificationGating(gate, props);
  }

  /**
   * @return the post-processor that lets the gate see what an {@code @Idempotent} tool method threw
   *     ({@link ToolExceptions}), which the gating above finds by this bean's name
   */
  @Bean(ToolExceptions.BEAN)
  public static BeanPostProcessor mcpGateToolExceptions(ObjectProvider<McpGate> mcpGate) {
    return new ToolExceptions(mcpGate);
  }
}
