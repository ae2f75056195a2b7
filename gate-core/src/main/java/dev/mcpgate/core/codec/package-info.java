/**
 * Result codecs that ship: {@link dev.mcpgate.core.codec.AesGcmResultCodec} encrypts stored results
 * with the JDK's AES-GCM, bound to their claim, with key rotation.
 */
package dev.mcpgate.core.codec;
