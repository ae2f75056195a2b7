package dev.mcpgate.redis.review;

import org.junit.jupiter.api.Assumptions;

/** The shared test servers of the review's tests (never a mock): skipped when one is not set. */
final class ReviewRedis {
  private ReviewRedis() {}

  static String url() {
    String url = System.getenv("MCPGATE_TEST_REDIS_URL");
    Assumptions.assumeTrue(url != null && !url.isBlank(), "MCPGATE_TEST_REDIS_URL is not set");
    return url;
  }

  static String clusterUrl() {
    String url = System.getenv("MCPGATE_TEST_REDIS_CLUSTER_URL");
    Assumptions.assumeTrue(
        url != null && !url.isBlank(), "MCPGATE_TEST_REDIS_CLUSTER_URL is not set");
    return url;
  }
}
