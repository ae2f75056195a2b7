package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.AopUtils;

/**
 * {@code @Idempotent} on beans that Spring wraps in proxies (a {@code @Transactional} service is
 * one): real Spring AOP proxies, CGLIB subclasses and JDK interface proxies.
 */
class ProxiedBeansTest {

  /** An interface a JDK proxy implements, annotated there. */
  public interface Notes {
    @Idempotent(
        tool = "add_note",
        naturalKey = {"ticket", "text"},
        keySources = KeySource.NATURAL)
    CallToolResult addNote(CallToolRequest request);
  }

  /** A service whose annotations sit on its own class. */
  public static class NoteService implements Notes {
    final AtomicInteger notes = new AtomicInteger();

    @Override
    public CallToolResult addNote(CallToolRequest request) {
      notes.incrementAndGet();
      return CallToolResult.builder().addTextContent("noted").build();
    }

    @Idempotent(tool = "close_ticket")
    public CallToolResult closeTicket(CallToolRequest request) {
      return CallToolResult.builder().addTextContent("closed").build();
    }
  }

  /** A bean with no @Idempotent method at all. */
  public static class Plain {
    public void nothing() {}
  }

  private static Object proxy(Object target, boolean cglib) {
    ProxyFactory factory = new ProxyFactory(target);
    factory.setProxyTargetClass(cglib);
    return factory.getProxy();
  }

  @Test
  void aCglibProxyShowsItsTargetClassesAnnotations() {
    Object proxy = proxy(new NoteService(), true);
    assertThat(AopUtils.isCglibProxy(proxy)).isTrue();

    assertThat(AnnotatedTools.policies(proxy)).containsOnlyKeys("add_note", "close_ticket");
  }

  @Test
  void aJdkProxyShowsItsInterfacesAnnotations() {
    Object proxy = proxy(new NoteService(), false);
    assertThat(Proxy.isProxyClass(proxy.getClass())).isTrue();

    assertThat(AnnotatedTools.policies(proxy)).containsOnlyKeys("add_note");
  }

  @Test
  void aToolOfAProxiedBeanIsReallyGated() {
    NoteService target = new NoteService();
    Notes proxied = (Notes) proxy(target, true);
    McpGate mcpGate =
        McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
            .tenantResolver(TenantResolver.fixed("local"))
            .build();
    McpSchema.Tool tool = McpSchema.Tool.builder("add_note", Map.of("type", "object")).build();
    McpSchema.Tool close = McpSchema.Tool.builder("close_ticket", Map.of("type", "object")).build();
    List<McpServerFeatures.SyncToolSpecification> gated =
        mcpGate.gateAnnotated(
            List.of(
                new McpServerFeatures.SyncToolSpecification(
                    tool, (ex, req) -> proxied.addNote(req)),
                new McpServerFeatures.SyncToolSpecification(
                    close, (ex, req) -> target.closeTicket(req))),
            proxied);
    CallToolRequest note = new CallToolRequest("add_note", Map.of("ticket", "T-1", "text", "hi"));

    try (McpHarness harness = McpHarness.stdio(gated)) {
      harness.client(null).callTool(note);
      CallToolResult again = harness.client(null).callTool(note);

      assertThat(target.notes).hasValue(1);
      assertThat(again.meta()).containsEntry(McpGateErrors.META_REPLAYED, true);
    }
  }

  @Test
  void aBeanWithNoAnnotationToFindFailsAtStartupInsteadOfPassingUngated() {
    assertThatThrownBy(() -> AnnotatedTools.policies(new Plain()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no @Idempotent method was found")
        .hasMessageContaining("proxy");
  }
}
