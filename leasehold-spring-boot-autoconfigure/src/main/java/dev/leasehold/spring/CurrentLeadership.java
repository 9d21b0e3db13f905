package dev.leasehold.spring;

import dev.leasehold.Leadership;
import java.util.Optional;

/**
 * CurrentLeadership gives a {@link LeaderOnly#fenced() fenced} {@code @LeaderOnly} call the
 * term it runs in, on the thread that runs it, for writes guarded by the fencing token.
 *
 * <p>Thread-safe: the term is bound to the calling thread only, from the call's start to its
 * end; nested fenced calls see their own term and restore the outer one.
 */
public final class CurrentLeadership {
  private static final ThreadLocal<Leadership> CURRENT = new ThreadLocal<>();

  private CurrentLeadership() {}

  /**
   * get returns the term of the fenced {@code @LeaderOnly} call running on this thread; it may
   * have ended since the call began ({@link Leadership#isValid()} tells), which the fencing
   * token guards against.
   *
   * @return the running call's term
   * @throws IllegalStateException outside a fenced {@code @LeaderOnly} call
   */
  public static Leadership get() {
    Leadership term = CURRENT.get();
    if (term == null) {
      throw new IllegalStateException(
          "no @LeaderOnly(fenced = true) call is running on thread " + Thread.currentThread().getName());
    }
    return term;
  }

  /**
   * find returns the term of the fenced {@code @LeaderOnly} call running on this thread, if any.
   *
   * @return the running call's term, or empty outside a fenced call
   */
  public static Optional<Leadership> find() {
    return Optional.ofNullable(CURRENT.get());
  }

  /** bind makes {@code term} current on this thread and returns the one it replaces (or null). */
  static Leadership bind(Leadership term) {
    Leadership previous = CURRENT.get();
    CURRENT.set(term);
    return previous;
  }

  /** restore puts back what {@link #bind} returned. */
  static void restore(Leadership previous) {
    if (previous == null) {
      CURRENT.remove();
    } else {
      CURRENT.set(previous);
    }
  }
}
