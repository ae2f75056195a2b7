package dev.mcpgate.quarkus.internal;

import jakarta.inject.Inject;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.util.function.BooleanSupplier;

/**
 * Tells {@link GateInterceptor} whether a transaction is open on the thread as a gated call
 * arrives: one its caller began, which ends after the gate stores the call's result. A bean only
 * where the application has a transaction manager; the gate looks it up by {@link #NAME}, so that
 * it needs no transaction types itself.
 */
@Singleton
@Named(CallerTransaction.NAME)
public class CallerTransaction implements BooleanSupplier {
  /** The bean's name. */
  static final String NAME = "dev.mcpgate.quarkus.caller-transaction";

  @Inject TransactionSynchronizationRegistry transactions;

  /**
   * @return true while a transaction is associated with the thread (active, marked rollback-only or
   *     timed out)
   */
  @Override
  public boolean getAsBoolean() {
    return transactions.getTransactionKey() != null;
  }
}
