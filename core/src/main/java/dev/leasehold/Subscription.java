package dev.leasehold;

/**
 * Subscription is the handle of a registered listener; closing it unsubscribes.
 *
 * <p>Closing is idempotent and thread-safe. An event already handed to the listener's
 * executor when {@link #close()} is called may still be delivered.
 */
public interface Subscription extends AutoCloseable {
  /** close unsubscribes the listener; further calls do nothing. */
  @Override
  void close();
}
