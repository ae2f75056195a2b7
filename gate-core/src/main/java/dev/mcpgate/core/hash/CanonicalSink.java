package dev.mcpgate.core.hash;

import java.io.ByteArrayOutputStream;
import java.security.MessageDigest;

/**
 * Buffers bytes and hands them on in blocks, to a digest or to a byte stream. Writers that put many
 * bytes at once (strings, numbers) write into {@link #buf} directly after {@link #ensure}.
 */
final class CanonicalSink {
  /** The most bytes one character of a string can take ({@code \}{@code u0000}). */
  static final int MAX_CHAR_BYTES = 6;

  final byte[] buf;
  int len;
  private char[] chars;
  private final MessageDigest digest;
  private final ByteArrayOutputStream stream;

  /** Bytes handed on so far, and how many may be: one byte more is a {@link PathFailure}. */
  private long total;

  private final long limit;

  CanonicalSink(MessageDigest digest, ByteArrayOutputStream stream) {
    this(digest, stream, 1024, CanonicalJson.MAX_CANONICAL_BYTES);
  }

  CanonicalSink(MessageDigest digest, ByteArrayOutputStream stream, int bufferSize, long limit) {
    this.digest = digest;
    this.stream = stream;
    this.buf = new byte[bufferSize];
    this.limit = limit;
  }

  /**
   * Counts n more bytes handed on.
   *
   * @throws PathFailure once more than the limit have been
   */
  private void count(int n) {
    total += n;
    if (total > limit) {
      throw new PathFailure(
          "makes the canonical form of the arguments longer than " + limit + " bytes");
    }
  }

  /** Scratch for the characters of a string, copied out in chunks. */
  char[] chars() {
    if (chars == null) {
      chars = new char[256];
    }
    return chars;
  }

  void flush() {
    count(len);
    if (digest != null) {
      digest.update(buf, 0, len);
    } else {
      stream.write(buf, 0, len);
    }
    len = 0;
  }

  /** Makes room for n bytes (n at most the buffer's size). */
  void ensure(int n) {
    if (buf.length - len < n) {
      flush();
    }
  }

  void put(int b) {
    if (len == buf.length) {
      flush();
    }
    buf[len++] = (byte) b;
  }

  void put(byte[] bytes) {
    ensure(bytes.length);
    System.arraycopy(bytes, 0, buf, len, bytes.length);
    len += bytes.length;
  }

  /** Writes bytes[off..off+n); a run longer than the buffer goes on without a copy. */
  void put(byte[] bytes, int off, int n) {
    if (buf.length - len < n) {
      flush();
      if (n >= buf.length) {
        count(n);
        if (digest != null) {
          digest.update(bytes, off, n);
        } else {
          stream.write(bytes, off, n);
        }
        return;
      }
    }
    System.arraycopy(bytes, off, buf, len, n);
    len += n;
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
