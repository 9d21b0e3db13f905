package dev.leasehold.runtime;

import dev.leasehold.LeadershipEvent.Cause;

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

  /**
   * Resign gives up leadership if held; {@code cause} labels the loss: {@link Cause#RESIGNED}
   * for {@code resign()}, {@link Cause#WORK_STALLED} for the leader-work watchdog. The two are
   * one step of the protocol; only the label differs.
   */
  record Resign(Cause cause) implements Input {
    /**
     * Resign rejects a cause other than RESIGNED or WORK_STALLED.
     *
     * @param cause RESIGNED or WORK_STALLED
     * @throws IllegalArgumentException for any other cause
     */
    public Resign {
      if (cause != Cause.RESIGNED && cause != Cause.WORK_STALLED) {
        throw new IllegalArgumentException("a resign's cause must be RESIGNED or WORK_STALLED, but was " + cause);
      }
    }

    /** Resign is the user's {@code resign()}: cause RESIGNED. */
    public Resign() {
      this(Cause.RESIGNED);
    }
  }

  /**
   * Transfer asks the MASTER to hand its term to the live candidate {@code candidateId}
   * ({@code LeaderElector.transferTo}); the machine answers it, at once or when its handover is
   * answered, with the {@link Command.TransferOutcome} of the same {@code id}. The runtime's ids
   * are positive; a machine answers an operator's transfer request under a negative one.
   */
  record Transfer(long id, String candidateId) implements Input {}

  /**
   * HealthChanged is the user's health check changing the elector's view of this candidate
   * (after the threshold of answers in a row): {@code healthy} false keeps it out of the queue
   * and makes a MASTER yield; {@code reason} says why it is unhealthy (empty when healthy).
   */
  record HealthChanged(boolean healthy, String reason) implements Input {}

  /** Close stops the machine for good. */
  record Close() implements Input {}

  /**
   * Failed marks an input that reports a failed store call, so the runtime can log why
   * without knowing the backend's inputs.
   */
  interface Failed extends Input {
    /**
     * reason is why the call failed, as the store adapter described it.
     *
     * @return the reason, for logs and the STORE_UNAVAILABLE event
     */
    String reason();
  }

  /** TimerFired is the timer {@code timer} going off for its arming {@code seq}. */
  record TimerFired(Enum<?> timer, long seq) implements Input {}
}
