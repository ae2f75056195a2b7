package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.OutcomeUnknownException;
import dev.mcpgate.mcp.TransactionEnds.End;
import org.junit.jupiter.api.Test;

/**
 * What the ends of a gated call's transactions make of what its tool method returned or threw: each
 * rule, including the retry advice's attempts, each with its own transaction.
 */
class TransactionEndsTest {
  private final TransactionEnds ends = new TransactionEnds();
  private final Exception thrown = new java.io.IOException("card service refused");

  private void transaction(End how) {
    ends.ended(ends.begun(), how);
  }

  @Test
  void withoutTransactionsAReturnIsStoredAndAFailureIsTheMethods() {
    assertThat(ends.returned(false)).isNull();
    assertThat(ends.returned(true)).isNull();
    assertThat(ends.threw(thrown)).isNull();
  }

  @Test
  void anAnswerWhileATransactionIsStillOpenIsAnUnknownOutcome() {
    int open = ends.begun(); // an interceptor stopped waiting; the method goes on elsewhere

    for (boolean ownError : new boolean[] {false, true}) {
      assertThat(ends.returned(ownError))
          .as("own error %s", ownError)
          .hasMessage(
              "the tool answered while an attempt of it still ran or a transaction of it was open:"
                  + " what it did there may yet take effect");
    }
    assertThat(ends.threw(thrown))
        .hasMessage(
            "the tool threw "
                + thrown
                + " while an attempt of it still ran or a transaction of it was open: what it did"
                + " there may yet take effect")
        .hasCause(thrown);

    ends.ended(open, End.ROLLED_BACK);
    assertThat(ends.returned(true)).isNull();
    assertThat(ends.threw(thrown)).isNull();
  }

  @Test
  void anAnswerWhileAnAttemptStillRunsIsAnUnknownOutcome() {
    ends.attemptBegan(); // an interceptor stopped waiting; the method goes on elsewhere

    assertThat(ends.returned(true)).isNotNull();
    assertThat(ends.threw(thrown)).isNotNull();

    ends.attemptEnded();
    assertThat(ends.returned(true)).isNull();
    assertThat(ends.threw(thrown)).isNull();
  }

  @Test
  void anEarlierAttemptsTransactionStillOpenMakesALaterAttemptsAnswerUnknown() {
    ends.begun(); // the first attempt was abandoned with its transaction open
    TransactionEnds second = new TransactionEnds(ends);
    second.ended(second.begun(), End.ROLLED_BACK);

    assertThat(second.returned(true)).isNotNull();
    assertThat(second.threw(thrown)).isNotNull();
  }

  @Test
  void aReturnAfterACommitIsStored() {
    transaction(End.COMMITTED);

    assertThat(ends.returned(false)).isNull();
  }

  @Test
  void aReturnAfterARollbackIsAnUnknownOutcomeUnlessItIsAnErrorOfItsOwn() {
    transaction(End.ROLLED_BACK);

    assertThat(ends.returned(false))
        .hasMessage(
            "the tool returned, but its transaction was rolled back: what it wrote in it was not"
                + " kept, and what it did elsewhere (another transaction, another system) may have"
                + " taken effect");
    assertThat(ends.returned(true)).isNull();
  }

  @Test
  void aReturnAfterAnEndNotKnownIsAnUnknownOutcomeEvenAnErrorOfItsOwn() {
    transaction(End.UNKNOWN);

    for (boolean ownError : new boolean[] {false, true}) {
      assertThat(ends.returned(ownError))
          .as("own error %s", ownError)
          .hasMessage(
              "the tool returned, but its transaction ended in a state not known: what it wrote"
                  + " may be kept");
    }
  }

  @Test
  void anErrorOfItsOwnAfterAnEarlierAttemptCommittedIsAnUnknownOutcome() {
    transaction(End.COMMITTED);
    transaction(End.ROLLED_BACK);

    assertThat(ends.returned(true))
        .hasMessage(
            "the tool answered an error result of its own, but a transaction of an earlier attempt"
                + " committed: what it wrote is kept");
    assertThat(ends.returned(false)).as("a return is read by the last attempt's end").isNotNull();
  }

  @Test
  void aReturnIsReadByTheLastAttemptsEnd() {
    transaction(End.ROLLED_BACK);
    transaction(End.COMMITTED);

    assertThat(ends.returned(false)).isNull();
    assertThat(ends.returned(true)).as("nothing earlier was kept").isNull();
  }

  @Test
  void aFailureAfterACommitIsAnUnknownOutcomeCausedByIt() {
    transaction(End.COMMITTED);

    OutcomeUnknownException fence = ends.threw(thrown);

    assertThat(fence)
        .hasMessage(
            "the tool threw java.io.IOException: card service refused after its transaction"
                + " committed: what it wrote is kept")
        .hasCause(thrown);
  }

  @Test
  void aFailureAfterAnEndNotKnownIsAnUnknownOutcome() {
    transaction(End.UNKNOWN);

    assertThat(ends.threw(thrown))
        .hasMessageEndingWith(
            " after its transaction ended in a state not known: what it wrote may be kept");
  }

  @Test
  void aFailureAfterARollbackIsTheMethods() {
    transaction(End.ROLLED_BACK);

    assertThat(ends.threw(thrown)).isNull();
  }

  @Test
  void aLaterAttemptsRollbackDoesNotUndoWhatAnEarlierOneCommitted() {
    transaction(End.COMMITTED);
    transaction(End.ROLLED_BACK);

    assertThat(ends.threw(thrown))
        .hasMessageEndingWith(
            ", but a transaction of an earlier attempt committed: what it wrote is kept");
  }

  @Test
  void aCommitOutranksAnEndNotKnownInEitherOrder() {
    transaction(End.UNKNOWN);
    transaction(End.COMMITTED);
    assertThat(ends.threw(thrown)).hasMessageEndingWith(" committed: what it wrote is kept");

    TransactionEnds other = new TransactionEnds();
    other.ended(other.begun(), End.COMMITTED);
    other.ended(other.begun(), End.UNKNOWN);
    assertThat(other.threw(thrown)).hasMessageContaining("an earlier attempt committed");
  }

  @Test
  void anEarlierTransactionsLateEndIsNotTheLast() {
    int first = ends.begun();
    ends.ended(ends.begun(), End.COMMITTED);
    ends.ended(first, End.ROLLED_BACK); // arrives after the latest's

    assertThat(ends.returned(false)).isNull();
  }

  @Test
  void aLaterInvocationCountsWhatAnEarlierOneKeptAsAnEarlierAttempts() {
    transaction(End.COMMITTED); // the first attempt's charge, then it threw
    TransactionEnds second = new TransactionEnds(ends);
    second.ended(second.begun(), End.ROLLED_BACK);

    assertThat(second.threw(thrown))
        .hasMessageEndingWith(
            ", but a transaction of an earlier attempt committed: what it wrote is kept");
    assertThat(second.returned(true))
        .hasMessageEndingWith(
            "a transaction of an earlier attempt committed: what it wrote is kept");
  }

  @Test
  void aLaterInvocationReadsAReturnByItsOwnTransaction() {
    transaction(End.ROLLED_BACK);
    TransactionEnds step = new TransactionEnds(ends); // a call after the first returned
    step.ended(step.begun(), End.COMMITTED);

    assertThat(ends.returned(false)).as("the first is read by its own").isNotNull();
    assertThat(step.returned(false)).isNull();
  }

  @Test
  void whatAnyEarlierInvocationKeptCounts() {
    transaction(End.UNKNOWN);
    TransactionEnds second = new TransactionEnds(ends);
    second.ended(second.begun(), End.ROLLED_BACK);
    TransactionEnds third = new TransactionEnds(second);
    third.ended(third.begun(), End.ROLLED_BACK);

    assertThat(third.threw(thrown))
        .hasMessageEndingWith(
            ", but a transaction of an earlier attempt ended in a state not known: what it wrote"
                + " may be kept");
  }
}
