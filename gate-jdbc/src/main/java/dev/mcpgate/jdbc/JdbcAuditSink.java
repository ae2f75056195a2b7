package dev.mcpgate.jdbc;

import static java.util.Objects.requireNonNull;

import dev.mcpgate.core.audit.AuditRecord;
import dev.mcpgate.core.audit.AuditSink;
import dev.mcpgate.core.spi.DaemonThreads;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
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

  private final DataSource dataSource;
  private final String table;
  private final boolean createTable;
  private final BlockingQueue<AuditRecord> queue;
  private final CountDownLatch drained = new CountDownLatch(1);
  private volatile Thread writer; // the thread draining the queue, once it runs
  private final AtomicLong written = new AtomicLong();
  private final AtomicLong dropped = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final AtomicLong accepted = new AtomicLong();
  private final long maxBytes;
  private final AtomicLong queuedBytes = new AtomicLong(); // never less than what is held
  private final ConcurrentHashMap<String, AtomicLong> droppedByTenant = new ConcurrentHashMap<>();
  private final AtomicLong lastDropLog =
      new AtomicLong(System.nanoTime() - DROP_LOG_INTERVAL_NANOS);
  private final AtomicLong droppedAtLastLog = new AtomicLong();
  private volatile boolean closed;
  private volatile String insertSql;

  private JdbcAuditSink(Builder b) {
    this.dataSource = b.dataSource;
    this.table = b.table;
    this.createTable = b.createTable;
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
        write(batch);
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
   * Writes a batch in one statement; if the batch fails, writes its records one by one, so that one
   * record the database refuses never takes the others (other tenants' too) down with it.
   */
  private void write(List<AuditRecord> batch) {
    try (Connection c = dataSource.getConnection()) {
      if (insertSql == null) {
        JdbcDialect dialect = JdbcDialect.detect(c.getMetaData());
        if (createTable && !Schema.tableExists(c, table)) {
          Schema.run(c, dialect.auditDdl(table));
          LOG.info("created the audit table {} ({}; createSchemaIfMissing)", table, dialect);
        }
        insertSql =
            "INSERT INTO "
                + TableName.check(table)
                + " (at_ms, tenant, tool, idem_key,"
                + " args_hash, arguments, decision, reason, attempt, result_summary, duration_us)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
      }
      // one transaction per batch: some drivers go on past a failed row of a batch, and a
      // batch written in auto-commit could leave half of it behind to be written twice
      boolean autoCommit = c.getAutoCommit();
      if (autoCommit) {
        c.setAutoCommit(false);
      }
      try {
        writeIsolated(c, batch);
      } finally {
        if (autoCommit) {
          c.setAutoCommit(true);
        }
      }
    } catch (SQLException | RuntimeException e) {
      lost(batch, e);
    }
  }

  private void writeIsolated(Connection c, List<AuditRecord> batch) throws SQLException {
    try {
      insert(c, batch);
      written.addAndGet(batch.size());
      return;
    } catch (SQLException | RuntimeException batchFailed) {
      c.rollback();
      if (batch.size() == 1) {
        lost(batch, batchFailed);
        return;
      }
    }
    for (AuditRecord r : batch) {
      try {
        insert(c, List.of(r));
        written.incrementAndGet();
      } catch (SQLException | RuntimeException alone) {
        c.rollback();
        lost(List.of(r), alone);
      }
    }
  }

  private void insert(Connection c, List<AuditRecord> records) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(insertSql)) {
      for (AuditRecord r : records) {
        ps.setLong(1, r.at().toEpochMilli());
        text(ps, 2, r.tenant(), 255);
        text(ps, 3, r.tool(), 255);
        text(ps, 4, r.key(), 255);
        text(ps, 5, r.argsHash(), 80);
        text(ps, 6, r.arguments(), 4000);
        ps.setString(7, r.decision().name());
        text(ps, 8, r.reason(), 1000);
        ps.setInt(9, r.attempt());
        text(ps, 10, r.resultSummary(), 1000);
        ps.setLong(11, r.durationMicros());
        ps.addBatch();
      }
      ps.executeBatch();
    }
    c.commit();
  }

  private void lost(List<AuditRecord> records, Exception e) {
    long n = failed.addAndGet(records.size());
    LOG.warn(
        "could not write {} audit record(s) to {} ({} lost so far)", records.size(), table, n, e);
  }

  /**
   * @return the text with what no database's text column holds replaced by U+FFFD: NUL (which
   *     PostgreSQL refuses) and lone surrogates (which no UTF-8 column can keep)
   */
  static String printable(String value) {
    StringBuilder out = null;
    for (int i = 0; i < value.length(); i++) {
      char ch = value.charAt(i);
      boolean pair =
          Character.isHighSurrogate(ch)
              && i + 1 < value.length()
              && Character.isLowSurrogate(value.charAt(i + 1));
      boolean bad = ch == 0 || (!pair && Character.isSurrogate(ch));
      if (bad && out == null) {
        out = new StringBuilder(value.length()).append(value, 0, i);
      }
      if (out != null) {
        out.append(bad ? '\ufffd' : ch);
        if (pair) {
          out.append(value.charAt(i + 1));
        }
      }
      if (pair) {
        i++;
      }
    }
    return out == null ? value : out.toString();
  }

  /** Binds text cut to at most {@code max} characters, never inside a surrogate pair. */
  private static void text(PreparedStatement ps, int index, String value, int max)
      throws SQLException {
    if (value == null) {
      ps.setNull(index, Types.VARCHAR);
      return;
    }
    String cut = printable(value);
    if (cut.length() > max) {
      int end = Character.isHighSurrogate(cut.charAt(max - 1)) ? max - 1 : max;
      cut = cut.substring(0, end);
    }
    ps.setString(index, cut);
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
      if (accepted.get() == written.get() + failed.get() && queuedBytes.get() == 0) {
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
    return written.get();
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
    return failed.get();
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
