package dev.mcpgate.quarkus.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.util.Map;
import java.util.Properties;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.Test;

/**
 * What the renewals' own driver connections are given ({@link GateBeans#renewalProperties}): what
 * Agroal gives the driver, so that a renewal logs in and connects as the pool does. (A credentials
 * provider's user and password: {@code RenewalCredentialsReviewTest}.)
 */
class RenewalPropertiesTest {
  private static Config config(Map<String, String> values) {
    return new SmallRyeConfigBuilder()
        .withSources(new PropertiesConfigSource(values, "test", 500))
        .build();
  }

  @Test
  void theDataSourcesAdditionalJdbcPropertiesUserAndPasswordReachTheRenewals() {
    Properties given =
        GateBeans.renewalProperties(
                config(
                    Map.of(
                        "quarkus.datasource.username", "app",
                        "quarkus.datasource.password", "secret",
                        "quarkus.datasource.jdbc.additional-jdbc-properties.sslmode", "require",
                        "quarkus.datasource.jdbc.additional-jdbc-properties.\"ApplicationName\"",
                            "shop")))
            .get();

    assertThat(given)
        .containsEntry("user", "app")
        .containsEntry("password", "secret")
        .containsEntry("sslmode", "require")
        .containsEntry("ApplicationName", "shop");
  }

  @Test
  void noneGivenIsNoneSent() {
    assertThat(GateBeans.renewalProperties(config(Map.of())).get()).isEmpty();
  }
}
