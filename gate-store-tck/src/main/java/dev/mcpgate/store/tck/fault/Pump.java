package dev.mcpgate.store.tck.fault;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One direction of a {@link Link}: a reader thread that reads chunks from one socket and queues
 * them, each with the time it is due, and a writer thread that writes them to the other socket when
 * they are due, in order. The delay lives in the queue, so a latency delays the bytes without
 * slowing the reading. A chunk read or due while the link is blackholed is dropped; so is the end
 * of the stream or an error, which the other side then never learns of.
 */
final class Pump {
  private static final int CHUNK_SIZE = 16 * 1024;
  private static final int MAX_QUEUED_CHUNKS = 1024;
  private static final byte[] END = new byte[0];

  private record Chunk(byte[] bytes, long dueNanos) {}

  private final Link link;
  private final Socket from;
  private final Socket to;
  private final BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>(MAX_QUEUED_CHUNKS);
  private final AtomicLong forwarded = new AtomicLong();
  private volatile boolean sourceEnded;
  private final Thread reader;
  private final Thread writer;

  Pump(Link link, Socket from, Socket to, String name) {
    this.link = link;
    this.from = from;
    this.to = to;
    this.reader = FaultProxy.daemon(name + " reader", this::read);
    this.writer = FaultProxy.daemon(name + " writer", this::write);
  }

  void start() {
    reader.start();
    writer.start();
  }

  /** Wakes the writer if it waits for a chunk; the reader wakes when its socket is closed. */
  void interrupt() {
    reader.interrupt();
    writer.interrupt();
  }

  Thread reader() {
    return reader;
  }

  Thread writer() {
    return writer;
  }

  long forwarded() {
    return forwarded.get();
  }

  /**
   * @return whether the socket read from ended its stream or was reset by its peer, forwarded or
   *     swallowed by a black hole; not when the link itself closed the socket
   */
  boolean sourceEnded() {
    return sourceEnded;
  }

  private void read() {
    byte[] buffer = new byte[CHUNK_SIZE];
    try {
      InputStream in = from.getInputStream();
      while (true) {
        int n = in.read(buffer);
        if (n < 0) {
          sourceEnded = true;
        }
        if (link.isBlackholed()) {
          if (n < 0) {
            return;
          }
          continue;
        }
        long due = System.nanoTime() + link.latencyNanos();
        if (n < 0) {
          queue.put(new Chunk(END, due));
          return;
        }
        queue.put(new Chunk(Arrays.copyOf(buffer, n), due));
      }
    } catch (IOException e) {
      if (link.isOpen()) {
        sourceEnded = true; // reset by the peer, not closed by the link
      }
      if (!link.isBlackholed()) {
        link.abort();
      }
    } catch (InterruptedException e) {
      // the link is closing
    }
  }

  private void write() {
    try {
      OutputStream out = to.getOutputStream();
      while (true) {
        Chunk chunk = queue.take();
        long wait = chunk.dueNanos() - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        if (link.isBlackholed()) {
          if (chunk.bytes() == END) {
            return;
          }
          continue;
        }
        if (chunk.bytes() == END) {
          to.shutdownOutput();
          link.directionEnded();
          return;
        }
        out.write(chunk.bytes());
        out.flush();
        forwarded.addAndGet(chunk.bytes().length);
      }
    } catch (IOException e) {
      link.abort();
    } catch (InterruptedException e) {
      // the link is closing
    }
  }
}
