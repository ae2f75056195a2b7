package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/**
 * Two stores on one H2 database, with a table that is not there yet, make their first calls at the
 * same moment (review Z saw one fail with "already exists" on {@code CREATE INDEX IF NOT EXISTS}):
 * each creates the table or finds the other's, and neither call fails.
 */
class H2SetupRaceTest {
  @Test
  void twoStoresCreatingOneTableAtOnceBothStart() throws Exception {
    JdbcDataSource h2 = new JdbcDataSource();
    h2.setURL("jdbc:h2:mem:mcpgate_setup_race;MODE=PostgreSQL;DB_CLOSE_DELAY=-1");
    List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
    for (int round = 0; round < 100; round++) {
      String table = "mg_setup_race_" + round;
      CyclicBarrier together = new CyclicBarrier(2);
      List<Thread> threads = new ArrayList<>();
      for (int s = 0; s < 2; s++) {
        JdbcIdempotencyStore store =
            JdbcIdempotencyStore.builder(h2).tableName(table).createSchemaIfMissing(true).build();
        Thread t =
            new Thread(
                () -> {
                  try {
                    together.await();
                    store.setup();
                  } catch (Throwable e) {
                    failures.add(e);
                  } finally {
                    store.close();
                  }
                });
        threads.add(t);
        t.start();
      }
      for (Thread t : threads) {
        t.join();
      }
    }
    assertThat(failures).isEmpty();
  }
}
