package dev.mcpgate.core.hash;

import java.io.ByteArrayOutputStream;
import java.security.MessageDigest;

/** Buffers bytes and hands them on in blocks, to a digest or to a byte stream. */
final class CanonicalSink {
  final byte[] buf = new byte[1024];
  int len;
  private final MessageDigest digest;
  private final ByteArrayOutputStream stream;

  CanonicalSink(MessageDigest digest, ByteArrayOutputStream stream) {
    this.digest = digest;
    this.stream = stream;
  }

  void flush() {
    if (digest != null) {
      digest.update(buf, 0, len);
    } else {
      stream.write(buf, 0, len);
    }
    len = 0;
  }

  void put(int b) {
    if (len == buf.length) {
      flush();
    }
    buf[len++] = (byte) b;
  }

  void put(byte[] bytes) {
    for (byte b : bytes) {
      put(b);
    }
  }

  void putAscii(String s) {
    for (int i = 0; i < s.length(); i++) {
      put(s.charAt(i));
    }
  }

  void finish() {
    if (len > 0) {
      flush();
    }
  }
}
