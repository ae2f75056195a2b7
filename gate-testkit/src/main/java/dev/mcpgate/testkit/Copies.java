package dev.mcpgate.testkit;

import dev.mcpgate.mcp.McpGateErrors;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.opentest4j.AssertionFailedError;

/**
 * Concurrent copies of one call, sent at once. A copy refused with {@code
 * idempotency_key_in_progress} (the gate refuses a duplicate in flight, at once or after its wait)
 * is sent again with the same key, as the refusal says, until it gets an answer or {@link
 * #IN_PROGRESS_LIMIT_MS} pass; its last answer is the copy's.
 */
final class Copies {
  /** How long a copy refused as in progress is retried. */
  static final long IN_PROGRESS_LIMIT_MS = 60_000;

  private Copies() {}

  static List<CallToolResult> send(McpSyncClient client, CallToolRequest request, int copies) {
    ExecutorService pool = Executors.newFixedThreadPool(copies);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<CompletableFuture<CallToolResult>> futures = new ArrayList<>();
      for (int i = 0; i < copies; i++) {
        futures.add(
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    go.await();
                    return untilNotInProgress(client, request);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                  }
                },
                pool));
      }
      go.countDown();
      List<CallToolResult> results = new ArrayList<>();
      for (CompletableFuture<CallToolResult> f : futures) {
        results.add(f.get(IN_PROGRESS_LIMIT_MS + 120_000, TimeUnit.MILLISECONDS));
      }
      return results;
    } catch (Exception e) {
      throw new AssertionFailedError(request.name() + ": concurrent copies failed: " + e, e);
    } finally {
      pool.shutdownNow();
    }
  }

  private static CallToolResult untilNotInProgress(McpSyncClient client, CallToolRequest request)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(IN_PROGRESS_LIMIT_MS);
    CallToolResult result = client.callTool(request);
    while (McpGateErrors.KEY_IN_PROGRESS.equals(Results.errorType(result))
        && System.nanoTime() < deadline) {
      Thread.sleep(Math.min(retryAfterMs(result), 200));
      result = client.callTool(request);
    }
    return result;
  }

  /** The refusal's {@code retry_after_ms}, or 100 when it gives none. */
  private static long retryAfterMs(CallToolResult refusal) {
    if (refusal.structuredContent() instanceof Map<?, ?> m
        && m.get("error") instanceof Map<?, ?> e
        && e.get(McpGateErrors.RETRY_AFTER_MS) instanceof Number n) {
      return Math.max(1, n.longValue());
    }
    return 100;
  }
}
