package dev.mcpgate.examples.trial;

import static dev.mcpgate.examples.trial.ExampleProcess.call;
import static dev.mcpgate.examples.trial.ExampleProcess.structured;
import static dev.mcpgate.examples.trial.ExampleProcess.text;
import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/examples.md: report_reproduction "counts once per (story, reporter)"; the table's primary
 * key "keeps the count right". A report that arrives before its story is published (a model calls
 * the tools in the other order, or the publish's answer is still on its way) is refused "there is
 * no story", but the handler has already inserted the reporter's row (autocommit) before finding
 * out. Over {@code serve --http}, on H2.
 */
class ReportReproductionTrialTest {
  @TempDir Path tmp;
  private ExampleProcess server;
  private McpSyncClient client;

  @BeforeEach
  void start() throws Exception {
    server =
        ExampleProcess.serveHttp(
            tmp.resolve("run"), "--jdbc-url", "jdbc:h2:file:" + tmp.resolve("db"));
    client = server.client("acme");
  }

  @AfterEach
  void stop() throws Exception {
    server.close();
  }

  /**
   * The refusal is not stored (an error result releases the claim), so the retry runs again: its
   * INSERT hits the row the refused attempt left, and it answers, as a success, "Already counted
   * your reproduction of ghost; 0 so far", for a story that does not exist. The model is told its
   * report counts when it was refused and counted nothing.
   */
  @Test
  void aRetryOfAReportRefusedForAMissingStoryIsNotToldAsCounted() {
    CallToolResult first =
        client.callTool(call("report_reproduction", "story_slug", "ghost", "reporter", "ada"));
    assertThat(first.isError()).isTrue();
    assertThat(text(first)).contains("there is no story ghost");

    CallToolResult retry =
        client.callTool(call("report_reproduction", "story_slug", "ghost", "reporter", "ada"));

    assertThat(text(retry)).as("the retry's answer").doesNotContain("Already counted");
    assertThat(retry.isError()).as("the story still does not exist").isTrue();
  }

  /**
   * After the refused report, the story is published and the same reporter reports again: the
   * reproduction is never counted (the stale row makes it "Already counted"; 0 so far).
   */
  @Test
  void aReportRefusedBeforeTheStoryWasPublishedCountsOnceItIs() {
    CallToolResult early =
        client.callTool(call("report_reproduction", "story_slug", "late", "reporter", "ada"));
    assertThat(early.isError()).isTrue();
    CallToolResult published =
        client.callTool(call("publish_story", "slug", "late", "title", "Late", "body", "b"));
    assertThat(published.isError()).isNotEqualTo(Boolean.TRUE);

    CallToolResult report =
        client.callTool(call("report_reproduction", "story_slug", "late", "reporter", "ada"));
    CallToolResult story = client.callTool(call("get_story", "slug", "late"));

    assertThat(text(report)).as("the report after publishing").startsWith("Counted");
    assertThat(structured(story).get("reproductions")).as("the story's count").isEqualTo(1);
  }
}
