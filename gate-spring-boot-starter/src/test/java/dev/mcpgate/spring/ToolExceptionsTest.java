package dev.mcpgate.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.OutcomeUnknownException;
import dev.mcpgate.mcp.Idempotent;
import dev.mcpgate.mcp.McpGate;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The guards of {@link ToolExceptions} that the servers' tests do not reach: a tool method whose
 * own {@link Publisher} type is kept, the Reactor schedule hook installed once per instance and
 * removed when the context closes, and what an error result after a returned method is told.
 */
class ToolExceptionsTest {
  private static final CallToolRequest REQUEST = new CallToolRequest("refund_order", Map.of());

  private final DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
  private final ToolExceptions exceptions =
      new ToolExceptions(beans.getBeanProvider(McpGate.class));

  @AfterEach
  void close() {
    exceptions.destroy();
  }

  /** A publisher type of the application's own, which a Flux is not. */
  static final class Refunds implements Publisher<String> {
    @Override
    public void subscribe(Subscriber<? super String> s) {
      Mono.just("refunded").subscribe(s);
    }
  }

  /** A tool bean whose method returns its own publisher type. */
  public static class RefundTools {
    @Idempotent
    public Refunds refund() {
      return new Refunds();
    }

    @Idempotent
    public String refundNow() {
      return "refunded";
    }
  }

  private RefundTools proxied() {
    exceptions.setBeanFactory(beans);
    Object bean = exceptions.postProcessAfterInitialization(new RefundTools(), "refundTools");
    assertThat(bean).as("the tool bean is proxied").isNotExactlyInstanceOf(RefundTools.class);
    return (RefundTools) bean;
  }

  @Test
  void aMethodReturningItsOwnPublisherTypeKeepsIt() {
    RefundTools tools = proxied();
    AtomicReference<Object> returned = new AtomicReference<>();
    exceptions
        .<Object>seeing(
            (x, request) -> {
              returned.set(tools.refund()); // a Flux in its place would fail the proxy's cast
              return CallToolResult.builder().addTextContent("ok").build();
            },
            false)
        .apply(null, REQUEST);
    assertThat(returned.get()).isInstanceOf(Refunds.class);
  }

  @Test
  void anErrorResultAfterTheMethodReturnedIsAnUnknownOutcomeThatSaysWhy() {
    RefundTools tools = proxied();
    BiFunction<Object, CallToolRequest, CallToolResult> handler =
        exceptions.seeing(
            (x, request) -> {
              tools.refundNow();
              return CallToolResult.builder()
                  .addTextContent("not convertible")
                  .isError(true)
                  .build();
            },
            false);
    assertThatThrownBy(() -> handler.apply(null, REQUEST))
        .isInstanceOf(OutcomeUnknownException.class)
        .hasMessageContaining("returned")
        .hasMessageContaining("could not be made a result")
        .hasMessageNotContaining("commit");
  }

  @Test
  void theScheduleHookIsInstalledOnceAndRemovedWhenTheContextCloses() {
    exceptions.seeingAsync((x, request) -> Mono.<CallToolResult>empty(), false);
    exceptions.seeingAsync((x, request) -> Mono.<CallToolResult>empty(), false);
    assertThat(wrappedWhileNoted()).as("a task scheduled during a noted call is wrapped").isTrue();
    exceptions.destroy();
    assertThat(wrappedWhileNoted()).as("no hook is left once the context closed").isFalse();
  }

  /**
   * @return whether Reactor's schedule hooks wrap a task scheduled while a call is noted
   */
  private boolean wrappedWhileNoted() {
    Runnable task = () -> {};
    AtomicReference<Runnable> scheduled = new AtomicReference<>();
    exceptions
        .<Object>seeing(
            (x, request) -> {
              scheduled.set(Schedulers.onSchedule(task));
              return CallToolResult.builder().addTextContent("ok").build();
            },
            false)
        .apply(null, REQUEST);
    return scheduled.get() != task;
  }
}
