package dev.leasehold.bench.contender;

import java.util.concurrent.locks.LockSupport;

/**
 * Arrival is when a cold start's candidates start: each as soon as the one before it has started
 * (no pace), or one every {@code pace} from the first. The first-leader time of a herd depends on
 * how fast its candidates arrive, whatever the protocol: 1,000 bare jetcd grant-then-campaign
 * candidates elect their first leader in about 0.1 s when they arrive over seconds, and in up to a
 * second when all their grants go out within 0.1 s (bench/HISTORY.md, 2026-12-06). A side-by-side
 * at one pace compares the protocols, not how long each harness takes to start a candidate.
 *
 * <p>Immutable and thread-safe; {@link #awaitTurn} parks the calling thread.
 */
public final class Arrival {
  private static final long SPIN_NANOS = 50_000;

  private final long paceNanos;

  private Arrival(long paceNanos) {
    this.paceNanos = paceNanos;
  }

  /**
   * everyMicros is one start every {@code micros} µs, or no pace for 0.
   *
   * @param micros the pace, 0 or more
   * @return the arrival
   * @throws IllegalArgumentException naming a negative pace
   */
  public static Arrival everyMicros(long micros) {
    if (micros < 0) {
      throw new IllegalArgumentException("pace-us must be 0 (no pace) or more, but was " + micros);
    }
    return new Arrival(micros * 1000);
  }

  /**
   * awaitTurn returns once candidate {@code index} may start: at once without a pace, else at
   * {@code t0 + index × pace} (at once if that has passed).
   *
   * @param t0 the first start's {@link System#nanoTime}
   * @param index the candidate's place in the start order, from 0
   */
  public void awaitTurn(long t0, int index) {
    if (paceNanos == 0) {
      return;
    }
    long at = t0 + index * paceNanos;
    for (long left = at - System.nanoTime(); left > 0; left = at - System.nanoTime()) {
      LockSupport.parkNanos(Math.min(left, SPIN_NANOS));
    }
  }
}
