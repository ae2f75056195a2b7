package dev.mcpgate.jdbc;

import static java.util.Objects.requireNonNull;

import dev.mcpgate.core.audit.AuditRecord;
import dev.mcpgate.core.audit.AuditSink;
import dev.mcpgate.core.spi.DaemonThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends audit records to a table (DDL per dialect: {@link JdbcDialect#auditDdl}), in batches, on
 * a writer thread of its own behind a bounded queue: a caller only queues its record, so the audit
 * trail can never change a decision or slow a call by more than a queue insert. A record that finds
 * the queue full is dropped, and a batch that cannot be written is lost; both are counted ({@link
 * #dropped()}, {@link #droppedByTenant()}, {@link #failed()}) and logged (drops at most once every
 * ten seconds), never silently swallowed.
 *
 * <p>The queue is bounded twice: by records ({@link Builder#queueCapacity}, 10,000 by default) and
 * by bytes ({@link Builder#queueBytes}, 16 MiB by default), the records waiting and the batch being
 * written counted together. A record weighs {@value #RECORD_OVERHEAD_BYTES} bytes and two per
 * character of its texts, which {@link AuditRecord} holds to {@value AuditRecord#MAX_CHARS}
 * characters: at most 15,620 bytes, whatever the call.
 *
 * <pre>{@code
 * JdbcAuditSink audit = JdbcAuditSink.builder(dataSource).createSchemaIfMissing(true).build();
 * McpGate.builder(gate).audit(audit)...;
 * // at shutdown
 * audit.close();
 * }</pre>
 */
public final class JdbcAuditSink implements AuditSink, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(JdbcAuditSink.class);
  private static final int BATCH = 100;

  /** What a record weighs besides its characters: its objects' headers and fields, roughly. */
  static final int RECORD_OVERHEAD_BYTES = 400;

  /** Tenants whose drops are counted one by one; drops of tenants beyond are in the total only. */
  static final int MAX_TENANTS_COUNTED = 1000;

  private static final long DROP_LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final String table;
  private final AuditTableWriter tableWriter;
  private final BlockingQueue<AuditRecord> queue;
  private final CountDownLatch drained = new CountDownLatch(1);
  private volatile Thread writer; // the thread draining the queue, once it runs
  private final AtomicLong dropped = new AtomicLong();
  private final AtomicLong accepted = new AtomicLong();
  private final long maxBytes;
  private final AtomicLong queuedBytes = new AtomicLong(); // never less than what is held
  private final ConcurrentHashMap<String, AtomicLong> droppedByTenant = new ConcurrentHashMap<>();
  private final AtomicLong lastDropLog =
      new AtomicLong(System.nanoTime() - DROP_LOG_INTERVAL_NANOS);
  private final AtomicLong droppedAtLastLog = new AtomicLong();
  private volatile boolean closed;

  private JdbcAuditSink(Builder b) {
    this.table = b.table;
    this.tableWriter = new AuditTableWriter(b.dataSource, b.table, b.createTable);
    this.queue = new ArrayBlockingQueue<>(b.capacity);
    this.maxBytes = b.maxBytes;
    Executor runner =
        b.executor != null
            ? b.executor
            : task -> DaemonThreads.named("mcpgate-audit-writer").newThread(task).start();
    runner.execute(this::drain);
  }

  /**
   * @param dataSource where the audit table is (the application's database, say)
   * @return a builder
   */
  public static Builder builder(DataSource dataSource) {
    return new Builder(requireNonNull(dataSource, "dataSource must not be null"));
  }

  /** Queues the record; never blocks, never throws. */
  @Override
  public void record(AuditRecord record) {
    if (record == null) {
      return;
    }
    long weight = weight(record);
    if (!closed) {
      // counted before it is queued, and released after it is written: never less than is held
      if (queuedBytes.addAndGet(weight) <= maxBytes && queue.offer(record)) {
        accepted.incrementAndGet();
        return;
      }
      queuedBytes.addAndGet(-weight);
    }
    dropped(record);
  }

  /**
   * @return what the record weighs in the queue's byte budget: {@value #RECORD_OVERHEAD_BYTES} and
   *     two bytes per character of its texts
   */
  static long weight(AuditRecord r) {
    long chars = 0;
    for (String s :
        new String[] {
          r.tenant(), r.tool(), r.key(), r.argsHash(), r.arguments(), r.reason(), r.resultSummary()
        }) {
      chars += s == null ? 0 : s.length();
    }
    return RECORD_OVERHEAD_BYTES + 2 * chars;
  }

  private void dropped(AuditRecord record) {
    long n = dropped.incrementAndGet();
    String tenant = record.tenant() == null ? "" : record.tenant();
    AtomicLong count = droppedByTenant.get(tenant);
    if (count == null && droppedByTenant.size() < MAX_TENANTS_COUNTED) {
      count = droppedByTenant.computeIfAbsent(tenant, t -> new AtomicLong());
    }
    if (count != null) {
      count.incrementAndGet();
    }
    long now = System.nanoTime();
    long last = lastDropLog.get();
    if (now - last >= DROP_LOG_INTERVAL_NANOS && lastDropLog.compareAndSet(last, now)) {
      long before = droppedAtLastLog.getAndSet(n);
      LOG.warn(
          "{} audit record(s) dropped since the last report ({} so far; by tenant:"
              + " droppedByTenant()): {}; the last a {} call to {}",
          n - before,
          n,
          closed
              ? "the sink is closed"
              : "the queue of "
                  + table
                  + " is full ("
                  + queue.size()
                  + " records, "
                  + queuedBytes.get()
                  + " of "
                  + maxBytes
                  + " bytes)",
          record.decision(),
          record.tool());
    }
  }

  private void drain() {
    writer = Thread.currentThread();
    try {
      drainQueue();
    } finally {
      writer = null;
      drained.countDown();
    }
  }

  private void drainQueue() {
    List<AuditRecord> batch = new ArrayList<>(BATCH);
    while (!closed || !queue.isEmpty()) {
      try {
        AuditRecord first = queue.poll(100, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        queue.drainTo(batch, BATCH - 1);
        tableWriter.write(batch);
      } catch (InterruptedException e) {
        if (closed) {
          break;
        }
      } finally {
        long weight = 0;
        for (AuditRecord r : batch) {
          weight += weight(r);
        }
        queuedBytes.addAndGet(-weight);
        batch.clear();
      }
    }
  }

  /**
   * Waits until every record queued so far is written (or lost) and its weight released from {@link
   * #queuedBytes()}, for tests and shutdown.
   *
   * @return true when the queue drained within the timeout
   */
  public boolean flush(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      // and its bytes released: the writer counts a batch written a moment before it releases it
      if (accepted.get() == tableWriter.written() + tableWriter.failed()
          && queuedBytes.get() == 0) {
        return true;
      }
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return false;
  }

  /**
   * @return records written
   */
  public long written() {
    return tableWriter.written();
  }

  /**
   * @return records dropped because the queue was full or the sink closed
   */
  public long dropped() {
    return dropped.get();
  }

  /**
   * @return records dropped because the queue was full or the sink closed, by tenant ({@code ""}
   *     for records without one), for the first {@value #MAX_TENANTS_COUNTED} tenants that had one
   *     dropped (those of later tenants are in {@link #dropped()} only)
   */
  public Map<String, Long> droppedByTenant() {
    Map<String, Long> copy = new HashMap<>();
    droppedByTenant.forEach((tenant, n) -> copy.put(tenant, n.get()));
    return Map.copyOf(copy);
  }

  /**
   * @return what the records waiting and the batch being written weigh ({@link Builder#queueBytes})
   */
  public long queuedBytes() {
    return queuedBytes.get();
  }

  /**
   * @return records lost because their batch could not be written
   */
  public long failed() {
    return tableWriter.failed();
  }

  /** Stops taking records, writes what is queued (5 s at most), and stops the writer. */
  @Override
  public void close() {
    closed = true;
    try {
      if (!drained.await(5, TimeUnit.SECONDS)) {
        Thread w = writer;
        if (w != null) {
          w.interrupt();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Builds a sink; every setter checks its argument. */
  public static final class Builder {
    private final DataSource dataSource;
    private String table = "mcpgate_audit";
    private boolean createTable;
    private int capacity = 10_000;
    private long maxBytes = 16L * 1024 * 1024;
    private Executor executor;

    private Builder(DataSource dataSource) {
      this.dataSource = dataSource;
    }

    /**
     * @param table the audit table; {@code mcpgate_audit} by default
     */
    public Builder tableName(String table) {
      this.table = TableName.check(table);
      return this;
    }

    /**
     * @param create create the table (and its index) on the first write when it is missing; the
     *     same name as the claims store's {@link
     *     JdbcIdempotencyStore.Builder#createSchemaIfMissing} and the starter's {@code
     *     mcpgate.create-schema-if-missing}
     */
    public Builder createSchemaIfMissing(boolean create) {
      this.createTable = create;
      return this;
    }

    /**
     * @param capacity how many records may wait for the writer; 10,000 by default
     */
    public Builder queueCapacity(int capacity) {
      if (capacity < 1) {
        throw new IllegalArgumentException("queueCapacity must be at least 1, was " + capacity);
      }
      this.capacity = capacity;
      return this;
    }

    /**
     * @param bytes how many bytes the records waiting for the writer (and the batch it writes) may
     *     weigh: {@value JdbcAuditSink#RECORD_OVERHEAD_BYTES} a record and two per character of its
     *     texts; 16 MiB by default, at least 64 KiB (four of the largest records)
     * @throws IllegalArgumentException if bytes is below 64 KiB
     */
    public Builder queueBytes(long bytes) {
      if (bytes < 64 * 1024) {
        throw new IllegalArgumentException("queueBytes must be at least 65536, was " + bytes);
      }
      this.maxBytes = bytes;
      return this;
    }

    /**
     * @param executor where the writer runs: one task that drains the queue until {@link
     *     JdbcAuditSink#close()}, holding one of its threads all that time, and the caller's to
     *     stop; by default a daemon thread of the sink's own ({@code mcpgate-audit-writer-1})
     */
    public Builder executor(Executor executor) {
      this.executor = requireNonNull(executor, "executor must not be null");
      return this;
    }

    /**
     * @return the sink, with its writer thread started; nothing connects until a record
     */
    public JdbcAuditSink build() {
      return new JdbcAuditSink(this);
    }
  }
}
