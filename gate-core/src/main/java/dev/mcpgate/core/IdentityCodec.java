package dev.mcpgate.core;

/** The codec that stores result bytes as they are. */
enum IdentityCodec implements ResultCodec {
  INSTANCE;

  @Override
  public byte[] encode(ClaimId id, byte[] plain) {
    return plain;
  }

  @Override
  public byte[] decode(ClaimId id, byte[] stored) {
    return stored;
  }
}
