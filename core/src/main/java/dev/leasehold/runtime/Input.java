package dev.leasehold.runtime;

/**
 * Input is anything that happens to an elector's {@link Machine}: a user request, a timer
 * going off, or (from each backend's own inputs) a store reply or notification.
 *
 * <p>The runtime's own inputs are the records below; a backend adds its store's inputs by
 * implementing this interface. Every input is an immutable record, safe to pass between
 * threads.
 */
public interface Input {
  /** Start begins the election. */
  record Start() implements Input {}

  /** Resign gives up leadership if held. */
  record Resign() implements Input {}

  /** Close stops the machine for good. */
  record Close() implements Input {}

  /** TimerFired is the timer {@code timer} going off for its arming {@code seq}. */
  record TimerFired(Enum<?> timer, long seq) implements Input {}
}
