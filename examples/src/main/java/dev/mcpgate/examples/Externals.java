package dev.mcpgate.examples;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The outside world of the example, simulated in memory: what a real server calls and cannot take
 * back. Each records every effect it accepts, so the demo can count them.
 */
final class Externals {
  final PaymentProvider payments = new PaymentProvider();
  final Mailer mailer = new Mailer();
  final SocialNetwork social = new SocialNetwork();

  /** A refund the payment provider accepted. */
  record Refund(String refundId, String orderId, long amountCents, String idempotencyKey) {}

  /** A mail that went out. */
  record Mail(String to, String subject, String messageId) {}

  /** A post on the social network. */
  record Post(String uri, String text) {}

  /**
   * A payment provider that deduplicates by the idempotency key it is given, as Stripe does: the
   * same key again returns the first refund; the same key with other parameters is refused. A
   * refund without a key is a new refund every time.
   */
  static final class PaymentProvider {
    final List<Refund> refunds = new CopyOnWriteArrayList<>();
    private final Map<String, Refund> byKey = new ConcurrentHashMap<>();

    Refund refund(String orderId, long amountCents, String idempotencyKey) {
      if (idempotencyKey == null) {
        return accept(orderId, amountCents, null);
      }
      Refund r =
          byKey.computeIfAbsent(idempotencyKey, k -> accept(orderId, amountCents, idempotencyKey));
      if (!r.orderId().equals(orderId) || r.amountCents() != amountCents) {
        throw new IllegalArgumentException(
            "idempotency key "
                + idempotencyKey
                + " was used for"
                + " another refund ("
                + r.orderId()
                + ", "
                + r.amountCents()
                + " cents)");
      }
      return r;
    }

    private Refund accept(String orderId, long amountCents, String idempotencyKey) {
      Refund r =
          new Refund(
              "re_" + UUID.randomUUID().toString().substring(0, 12),
              orderId,
              amountCents,
              idempotencyKey);
      refunds.add(r);
      return r;
    }
  }

  /** An outbox: every mail sent is kept. */
  static final class Mailer {
    final List<Mail> sent = new CopyOnWriteArrayList<>();

    Mail send(String to, String subject, String messageId) {
      Mail m = new Mail(to, subject, messageId);
      sent.add(m);
      return m;
    }
  }

  /** A social network that can be told to fail its next post. */
  static final class SocialNetwork {
    final List<Post> posts = new CopyOnWriteArrayList<>();
    final AtomicBoolean failNext = new AtomicBoolean();

    Post post(String text) {
      if (failNext.getAndSet(false)) {
        throw new IllegalStateException("social network unavailable");
      }
      Post p = new Post("social://post/" + UUID.randomUUID().toString().substring(0, 8), text);
      posts.add(p);
      return p;
    }
  }
}
