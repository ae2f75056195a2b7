package dev.mcpgate.quarkus.deployment.review;

import io.quarkus.credentials.CredentialsProvider;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;
import java.util.Map;

/** The data source's credentials from a provider (as from Vault), not from quarkus.datasource.*. */
@ApplicationScoped
@Named("review-credentials")
public class VaultLikeCredentials implements CredentialsProvider {
  @Override
  public Map<String, String> getCredentials(String credentialsProviderName) {
    return Map.of(USER_PROPERTY_NAME, "postgres", PASSWORD_PROPERTY_NAME, "unused");
  }
}
