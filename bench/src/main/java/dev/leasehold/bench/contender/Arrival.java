package dev.leasehold.bench.contender;

import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Arrival is when a cold start's candidates start: each as soon as the one before it has started
 * (no pace), or one every {@code pace} from the first. The first-leader time of a herd depends on
 * how fast its candidates arrive, whatever the protocol: 1,000 bare jetcd grant-then-campaign
 * candidates elect their first leader in about 0.1 s when they arrive over seconds, and in up to a
 * second when all their grants go out within 0.1 s (bench/HISTORY.md, 2026-12-06). A side-by-side
 * at one pace compares the protocols, not how long each harness takes to start a candidate.
 *
 * <p>Immutable and thread-safe; {@link #startEach} and {@link #awaitTurn} park the calling thread.
 */
public final class Arrival {
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
   * startEach hands each of {@code candidates} to {@code start}, in order, each at its turn
   * counted from {@code t0}.
   *
   * @param t0 the first start's {@link System#nanoTime}
   * @param candidates what to start, in start order
   * @param start starts one
   * @param <T> the candidates' type
   */
  public <T> void startEach(long t0, List<T> candidates, Consumer<? super T> start) {
    for (int i = 0; i < candidates.size(); i++) {
      awaitTurn(t0, i);
      start.accept(candidates.get(i));
    }
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
      // parkNanos may return early (spuriously or on an unpark): the loop parks again.
      LockSupport.parkNanos(left);
    }
  }
}
