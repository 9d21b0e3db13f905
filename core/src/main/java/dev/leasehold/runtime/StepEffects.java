package dev.leasehold.runtime;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * StepEffects is what a pure {@link Machine}'s parts share to act, for every backend: the
 * commands of the current step, in order; operation ids and timer arming numbers, from one
 * counter; the timer table, at most one arming per timer kind {@code K}; and the jittered
 * backoff after failures. A machine's own effects class extends it with what only that
 * backend needs.
 *
 * <p>Pure (no clock, no threads) and not thread-safe: owned by one machine, stepped on one
 * event loop.
 *
 * @param <K> the machine's timer kinds
 */
public abstract class StepEffects<K extends Enum<K>> {
  private final Class<K> kinds;
  private final Map<K, Long> armed;
  private final long backoffInitialNanos;
  private final long backoffMaxNanos;
  private final RandomGenerator random;
  private List<Command> out = new ArrayList<>();
  private long nextId = 1;

  /**
   * StepEffects keeps timers of the kinds in {@code kinds} and backs off from {@code
   * backoffInitialNanos} up to {@code backoffMaxNanos}, drawing jitter from {@code random}.
   *
   * @param kinds the machine's timer kinds
   * @param backoffInitialNanos the first retry delay, in nanoseconds
   * @param backoffMaxNanos the largest retry delay, in nanoseconds
   * @param random the machine's one source of jitter
   */
  protected StepEffects(
      Class<K> kinds, long backoffInitialNanos, long backoffMaxNanos, RandomGenerator random) {
    this.kinds = Objects.requireNonNull(kinds, "kinds");
    this.armed = new EnumMap<>(kinds);
    this.backoffInitialNanos = backoffInitialNanos;
    this.backoffMaxNanos = backoffMaxNanos;
    this.random = Objects.requireNonNull(random, "random");
  }

  /**
   * random is the machine's one source of randomness.
   *
   * @return the random generator the machine was made with
   */
  protected final RandomGenerator random() {
    return random;
  }

  /** begin starts a step's command list. */
  public final void begin() {
    out = new ArrayList<>();
  }

  /**
   * commands is the current step's command list.
   *
   * @return the commands of the step so far, in order
   */
  public final List<Command> commands() {
    return out;
  }

  /**
   * add appends a command.
   *
   * @param c the command to carry out after those already added
   */
  public final void add(Command c) {
    out.add(c);
  }

  /**
   * id is a fresh operation id (or arming number); ids never repeat.
   *
   * @return a new id, larger than every one handed out before
   */
  public final long id() {
    return nextId++;
  }

  /**
   * setTimer arms {@code kind} at {@code at}, replacing its previous arming.
   *
   * @param kind the timer's kind
   * @param at the monotonic time to fire at, in nanoseconds
   */
  public final void setTimer(K kind, long at) {
    long seq = id();
    armed.put(kind, seq);
    out.add(new Command.SetTimer(kind, seq, at));
  }

  /**
   * cancelTimer disarms {@code kind}; it says nothing when the kind is not armed.
   *
   * @param kind the timer's kind
   */
  public final void cancelTimer(K kind) {
    if (armed.remove(kind) != null) {
      out.add(new Command.CancelTimer(kind));
    }
  }

  /** cancelAllTimers disarms every armed timer, in the kinds' declaration order. */
  public final void cancelAllTimers() {
    for (K k : kinds.getEnumConstants()) {
      cancelTimer(k);
    }
  }

  /**
   * fired is the kind of a timer that went off for its latest arming, which it disarms; null
   * for an arming that was replaced or cancelled, or a timer that is not this machine's.
   *
   * @param t the timer input
   * @return the timer's kind, or null when the firing is stale or not this machine's
   */
  public final K fired(Input.TimerFired t) {
    if (!kinds.isInstance(t.timer())) {
      return null;
    }
    K kind = kinds.cast(t.timer());
    Long seq = armed.get(kind);
    if (seq == null || seq != t.seq()) {
      return null;
    }
    armed.remove(kind);
    return kind;
  }

  /**
   * backoff is the capped exponential delay after {@code n} failures, with equal jitter:
   * {@code min(max, initial × 2^(n−1))}, drawn uniformly in [½, 1] of that (PROTOCOL.md §4.4).
   *
   * @param n the number of failures in a row, at least 1
   * @return the delay in nanoseconds
   */
  public final long backoff(long n) {
    long cap = backoffMaxNanos;
    long d = backoffInitialNanos;
    for (long i = 1; i < n && d < cap; i++) {
      d = Math.min(cap, d * 2);
    }
    d = Math.min(cap, d);
    return d / 2 + (long) (random.nextDouble() * (d / 2));
  }
}
