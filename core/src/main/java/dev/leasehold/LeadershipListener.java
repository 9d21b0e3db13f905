package dev.leasehold;

/**
 * LeadershipListener receives an elector's {@link LeadershipEvent}s.
 *
 * <p>Events reach one listener in the order the elector produced them, one at a time, on
 * the elector's dispatcher thread or on the executor given at subscription, never on the
 * elector's event loop. By the time a listener runs, the state it describes may already be
 * stale: a MASTER event says leadership was won, not that it is still held. Check
 * {@link Leadership#isValid()} before each leader-only action, and guard writes with the
 * fencing token. An exception thrown by a listener is logged and does not affect other
 * listeners or later events.
 *
 * <p>Thread safety: one subscription never runs its listener concurrently with itself, so a
 * listener used by one subscription needs no synchronization of its own; the same listener
 * object subscribed twice, or to two electors, can run on two threads at once and must then
 * be thread-safe.
 */
@FunctionalInterface
public interface LeadershipListener {
  /**
   * onLeadershipChanged is called once per event, in order.
   *
   * @param event the event, never null; it may already be stale when this runs
   */
  void onLeadershipChanged(LeadershipEvent event);
}
