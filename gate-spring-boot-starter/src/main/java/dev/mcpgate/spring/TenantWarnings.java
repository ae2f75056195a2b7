package dev.mcpgate.spring;

import dev.mcpgate.spring.McpGateProperties.Tenant.Source;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The warnings of {@link SpringTenantResolver} when a call gets no tenant and the adapter refuses
 * it ({@code tenant_unknown}): one WARN of each cause at most once a minute, with the count of the
 * calls in between, under the resolver's logger. They name the sources, the header and the
 * properties, never a value a client sent.
 */
final class TenantWarnings {
  private static final Logger LOG = LoggerFactory.getLogger(SpringTenantResolver.class);

  /** The properties that say where the tenant comes from, for the warnings. */
  static final String PROPERTIES =
      "mcpgate.tenant.header (a request header set by a trusted"
          + " gateway), mcpgate.tenant.constant (one tenant for every call), Spring Security's"
          + " authenticated principal (mcpgate.tenant.from-principal, true by default), or several"
          + " in order with mcpgate.tenant.sources";

  /** At most one refusal warning of each cause this often; the ones in between are counted. */
  static final long WARN_EVERY_NANOS = java.util.concurrent.TimeUnit.MINUTES.toNanos(1);

  private final List<Source> order;
  private final String header;
  private final OncePerPeriod noTenant = new OncePerPeriod();
  private final OncePerPeriod repeatedHeader = new OncePerPeriod();
  private final OncePerPeriod unreadable = new OncePerPeriod();

  /**
   * @param order the sources the resolver asks, in order
   * @param header the tenant header, or null
   */
  TenantWarnings(List<Source> order, String header) {
    this.order = order;
    this.header = header;
  }

  /** A source could not be read where the call runs ({@code SpringTenantResolver#unreadable}). */
  void unreadable(Source source) {
    long more = unreadable.take();
    if (more >= 0) {
      LOG.warn(
          "MCP Gate refused a call to a gated tool with tenant_unknown: the tenant source {} cannot"
              + " be read where the call runs (on WebFlux: a request that passed no Spring Security"
              + " filter before MCP Gate's capture, or a transport whose context the starter could"
              + " not fill; an async tool needs the exchange or the security context in its Reactor"
              + " context), and a source that cannot be read never falls back to the next ({} more"
              + " such call(s) since the last warning). {}",
          source,
          more,
          PROPERTIES);
    }
  }

  /**
   * A request carried the tenant header more than once: it names the header, never its values
   * (which the client chose).
   */
  void repeatedHeader(int lines) {
    long more = repeatedHeader.take();
    if (more >= 0) {
      LOG.warn(
          "MCP Gate refused a call to a gated tool with tenant_unknown: its request carried the"
              + " tenant header {} {} times, and a repeated tenant header is never read ({} more"
              + " such call(s) since the last warning). Does a gateway add the header instead of"
              + " replacing the client's?",
          header,
          lines,
          more);
    }
  }

  /** No source found a tenant for a call: names the properties. */
  void refused() {
    long more = noTenant.take();
    if (more >= 0) {
      LOG.warn(
          "MCP Gate refused {} call(s) to gated tools with tenant_unknown since the last"
              + " warning: {} found no tenant for them{}. The tenant comes from {}",
          more + 1,
          order.isEmpty() ? "no source is configured, and it" : "the source " + order,
          order.contains(Source.HEADER)
              ? " (is the header " + header + " missing?)"
              : order.contains(Source.PRINCIPAL) ? " (an anonymous caller?)" : "",
          PROPERTIES);
    }
  }

  /** One line a period: {@link #take} says whether this one is logged and how many were not. */
  private static final class OncePerPeriod {
    private final AtomicLong last = new AtomicLong(System.nanoTime() - WARN_EVERY_NANOS);
    private final AtomicLong skipped = new AtomicLong();

    /**
     * @return -1 when this line is only counted; else how many were counted since the last one
     */
    long take() {
      long before = last.get();
      long now = System.nanoTime();
      if (now - before >= WARN_EVERY_NANOS && last.compareAndSet(before, now)) {
        return skipped.getAndSet(0);
      }
      skipped.incrementAndGet();
      return -1;
    }
  }
}
