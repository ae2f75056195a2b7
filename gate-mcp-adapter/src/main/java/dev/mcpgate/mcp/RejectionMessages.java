package dev.mcpgate.mcp;

import dev.mcpgate.core.InvalidArgumentsException;
import dev.mcpgate.core.InvalidIdempotencyKeyException;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;

/**
 * What a model reads when its call is refused before the gate claims anything (no tenant, a tenant
 * the server cannot use, no or a bad key, arguments that cannot be compared, the authorizer's
 * refusal): nothing ran, and the same call meets the same refusal. The gate's own decisions are
 * {@link ModelMessages}'.
 */
final class RejectionMessages {
  private RejectionMessages() {}

  static CallToolResult tenantUnknown() {
    return ModelMessages.notRun(
        McpGateErrors.TENANT_UNKNOWN,
        "The server could not tell which account this"
            + " call belongs to, so it did not run it; nothing took effect. If this client is"
            + " meant to say who it is (a login, a token, or a header the server's documentation"
            + " names) and did not, the fix is the client's: send the call again with it. If it"
            + " did, the fix is the server's: its tenant source (with the Spring Boot starter,"
            + " the mcpgate.tenant.* properties) found nothing in the request, and retrying will"
            + " not help until that is fixed.");
  }

  /** Never quotes the tenant: it is the server's, not the caller's, to see (it is logged). */
  static CallToolResult tenantInvalid(InvalidIdempotencyKeyException e) {
    return ModelMessages.notRun(
        McpGateErrors.TENANT_INVALID,
        "The server could not use the account this call"
            + " belongs to, so it did not run it. This is a server configuration problem; retrying"
            + " will not help until it is fixed.");
  }

  static CallToolResult forbidden(String refusal) {
    return ModelMessages.notRun(McpGateErrors.FORBIDDEN, refusal);
  }

  static CallToolResult keyRequired(ToolPolicy policy) {
    String message;
    if (policy.keySources().contains(KeySource.ARGUMENT)) {
      message =
          "This tool changes state, so it needs an idempotency key and was not run. Call it"
              + " again with the argument "
              + policy.keyArgument()
              + " set to a new unique value"
              + " (for example a UUID), and reuse that value if you have to retry.";
    } else if (policy.keySources().contains(KeySource.NATURAL)) {
      message =
          "This tool needs the arguments "
              + String.join(", ", policy.naturalKey())
              + " to tell a retry from a new request, and was not run. Call it again with them.";
    } else if (policy.keySources().contains(KeySource.META)) {
      message =
          "This tool needs an idempotency key in _meta "
              + McpGateErrors.META_KEY
              + " and was not run.";
    } else {
      message =
          "This tool needs an idempotency key in the "
              + KeySource.HEADER_CONTEXT_KEY
              + " header and was not run.";
    }
    return ModelMessages.notRun(McpGateErrors.KEY_REQUIRED, message);
  }

  static CallToolResult keyInvalid(InvalidIdempotencyKeyException e) {
    return ModelMessages.notRun(
        McpGateErrors.KEY_INVALID,
        "The idempotency key is not valid: "
            + e.getMessage()
            + ". Nothing was run. Send one key of 1 to 255 characters, valid"
            + " Unicode, without control characters.");
  }

  /**
   * The arguments a natural key is made of have no canonical form (too deep, too large, a NaN): the
   * same refusal as when the gate cannot hash the arguments.
   */
  static CallToolResult argumentsInvalid(InvalidArgumentsException e) {
    return ModelMessages.notRun(
        McpGateErrors.ARGUMENTS_INVALID,
        "The arguments cannot be compared for retries: "
            + e.getMessage()
            + ". Nothing was run; send the call again with valid arguments.");
  }

  /**
   * A number among the arguments arrived as a {@code double}: the server's JSON mapper read it
   * inexactly, so nearby numbers would hash alike and one call could replay another's result.
   */
  static CallToolResult argumentsInexact(String path) {
    return ModelMessages.notRun(
        McpGateErrors.ARGUMENTS_INVALID,
        "The arguments cannot be compared for"
            + " retries: the server read the number at "
            + path
            + " as an approximate (double) value, so it could not tell this call from one with a"
            + " nearby number. Nothing was run. Where a whole number is meant, one sent without a"
            + " decimal point or exponent may be read exactly; otherwise a call with this argument"
            + " is refused until the server's operator has it read numbers exactly (on the MCP Java"
            + " SDK, with ExactNumbers.jsonMapper(); with the Spring Boot starter,"
            + " mcpgate.exact-numbers=true).");
  }
}
