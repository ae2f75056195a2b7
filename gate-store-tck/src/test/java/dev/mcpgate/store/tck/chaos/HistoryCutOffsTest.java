package dev.mcpgate.store.tck.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * What the checker counts as a replica cut off from the store: its pauses in a row, as one, until
 * the store extends the lease in question.
 */
class HistoryCutOffsTest {
  private static long ms(long millis) {
    return TimeUnit.MILLISECONDS.toNanos(millis);
  }

  @Test
  void pausesInARowAreOneCutOffUntilTheStoreExtendsTheLease() {
    AtomicLong clock = new AtomicLong();
    History history = new History(clock::get);
    history.paused("r1", ms(0), ms(700));
    history.paused("r1", ms(700), ms(1300)); // begins as the one before ends
    history.paused("r0", ms(100), ms(200));
    history.paused("r0", ms(201), ms(300)); // a moment after: not one cut-off
    clock.set(ms(700));
    history.extended("r1", "k"); // a renewal stalled by the first pause acts as it ends

    assertThat(history.cutOffs("other"))
        .containsExactly(
            new History.Pause("r0", ms(100), ms(200)),
            new History.Pause("r0", ms(201), ms(300)),
            new History.Pause("r1", ms(0), ms(1300)));
    assertThat(history.cutOffs("k"))
        .containsExactly(
            new History.Pause("r0", ms(100), ms(200)),
            new History.Pause("r0", ms(201), ms(300)),
            new History.Pause("r1", ms(0), ms(700)),
            new History.Pause("r1", ms(700), ms(1300)));
  }

  @Test
  void aPauseAfterAFaultedRenewalCutsTheLeaseOffFromItsLastExtension() {
    AtomicLong clock = new AtomicLong();
    History history = new History(clock::get);
    clock.set(ms(250));
    history.extended("r0", "k"); // the last renewal that reached the store
    clock.set(ms(500));
    history.renewalFault("r0"); // the next one stalled past its deadline
    history.paused("r0", ms(751), ms(1266)); // then the process paused
    history.paused("r1", ms(751), ms(1266)); // another replica: no renewal of its faulted
    clock.set(ms(2000));
    history.extended("r1", "k");

    assertThat(history.cutOffs("k"))
        .containsExactly(
            new History.Pause("r0", ms(250), ms(250)),
            new History.Pause("r0", ms(250), ms(1266)),
            new History.Pause("r1", ms(751), ms(1266)));
    assertThat(history.cutOffs("other"))
        .as("another key's lease was never extended here: its pauses are as they are")
        .containsExactly(
            new History.Pause("r0", ms(751), ms(1266)), new History.Pause("r1", ms(751), ms(1266)));
  }
}
