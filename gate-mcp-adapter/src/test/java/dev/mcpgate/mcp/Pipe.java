package dev.mcpgate.mcp;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * An in-process byte pipe between threads (java.io's piped streams die with their writer thread);
 * in the harness test-jar for the client's tests too.
 */
public final class Pipe {
  private static final byte[] EOF = new byte[0];
  private final LinkedBlockingQueue<byte[]> chunks = new LinkedBlockingQueue<>();

  public final OutputStream out =
      new OutputStream() {
        @Override
        public void write(int b) {
          chunks.add(new byte[] {(byte) b});
        }

        @Override
        public void write(byte[] b, int off, int len) {
          if (len > 0) {
            chunks.add(Arrays.copyOfRange(b, off, off + len));
          }
        }

        @Override
        public void close() {
          chunks.add(EOF);
        }
      };

  public final InputStream in =
      new InputStream() {
        private byte[] current = new byte[0];
        private int pos;
        private boolean closed;

        private boolean fill() throws IOException {
          while (pos >= current.length) {
            if (closed) {
              return false;
            }
            try {
              current = chunks.take();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new IOException("interrupted", e);
            }
            pos = 0;
            if (current == EOF) {
              closed = true;
              return false;
            }
          }
          return true;
        }

        @Override
        public int read() throws IOException {
          return fill() ? current[pos++] & 0xff : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
          if (len == 0) {
            return 0;
          }
          if (!fill()) {
            return -1;
          }
          int n = Math.min(len, current.length - pos);
          System.arraycopy(current, pos, b, off, n);
          pos += n;
          return n;
        }

        @Override
        public int available() {
          return Math.max(0, current.length - pos);
        }
      };
}
