package dev.leasehold;

import java.util.Objects;
import java.util.Optional;

/**
 * LeaderTaskOutcome is how one {@link LeaderElector#runWhileLeader} run ended. Immutable and
 * thread-safe (the value and failure are the task's own objects).
 *
 * @param leadership the term the task ran in
 * @param value what the task returned; empty if it returned null or threw
 * @param failure what the task threw (an {@link InterruptedException} too, when it answered the
 *     runner's interrupt with one); empty if it returned
 * @param interruption why the runner interrupted the task, if it did
 * @param ignoredInterrupt true when the task was still running {@code grace} after it was
 *     interrupted (for {@link Interruption#DEADLINE_NEAR}: past the local deadline), which was
 *     logged at WARN: it may have acted outside its term
 * @param resigned true when the task returned while the term was still valid and the runner
 *     resigned it
 * @param <T> what the task returns
 */
public record LeaderTaskOutcome<T>(
    Leadership leadership,
    Optional<T> value,
    Optional<Throwable> failure,
    Optional<Interruption> interruption,
    boolean ignoredInterrupt,
    boolean resigned) {

  /** Interruption is why the runner interrupted a task. */
  public enum Interruption {
    /** TERM_ENDED: the term ended (a loss, resign() or close()) while the task ran. */
    TERM_ENDED,
    /**
     * DEADLINE_NEAR: no renewal was confirmed for so long that only {@code grace} was left
     * before the local deadline; the term was still valid when the interrupt came.
     */
    DEADLINE_NEAR,
    /** CALLER_INTERRUPTED: the thread that called runWhileLeader was interrupted. */
    CALLER_INTERRUPTED
  }

  /**
   * LeaderTaskOutcome rejects null components.
   *
   * @param leadership the term, not null
   * @param value the returned value, or empty; not null
   * @param failure the thrown exception, or empty; not null
   * @param interruption the reason for the runner's interrupt, or empty; not null
   * @param ignoredInterrupt whether the task outlived its interrupt by {@code grace}
   * @param resigned whether the runner resigned the term after the task ended
   */
  public LeaderTaskOutcome {
    Objects.requireNonNull(leadership, "leadership");
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(failure, "failure");
    Objects.requireNonNull(interruption, "interruption");
  }
}
