package dev.leasehold;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletionStage;

/**
 * Leadership is the scope of one term of leadership held by this process.
 *
 * <p>It is valid from election until the elector steps down, which happens no later than
 * the local deadline (send time of the last confirmed renewal + TTL × (1 − maxDriftRate) −
 * safetyMargin, on the monotonic clock). A process paused for longer than the safety
 * margin can still act after the store let another leader in: guard every effect with
 * {@link #fencingToken()} (see {@code EtcdFencing} for etcd). Thread-safe: every method may
 * be called from any thread.
 */
public interface Leadership {
  /**
   * electionKey is the key this term holds.
   *
   * @return the election key, as configured
   */
  String electionKey();

  /**
   * candidateId is this process's candidate id.
   *
   * @return this process's candidate id, as configured
   */
  String candidateId();

  /**
   * fencingToken is the key's mod revision when the term began; it strictly increases from term
   * to term.
   *
   * @return the token to pass to the resources leader-only work writes to, positive
   */
  long fencingToken();

  /**
   * leaseId is the store's id of the lease this term rides on (etcd: the lease the key is
   * bound to); {@code toString} prints it in hex, as etcdctl does.
   *
   * @return the lease id
   */
  long leaseId();

  /**
   * grantedTtl is the TTL the store granted this term's lease, which may differ from the one
   * configured: etcd grants whole seconds, and etcd 3.4 grants at least 2 s when 1 s is asked.
   * It is what the store waits after the last renewal before it lets another leader in; the
   * local deadline ({@link #timeLeft()}) comes earlier.
   *
   * @return the granted TTL, positive
   */
  Duration grantedTtl();

  /**
   * electedAt is the wall-clock time the term began, for reporting only.
   *
   * @return the wall-clock time of the election, from the local clock
   */
  Instant electedAt();

  /**
   * guarantee is how far this term's mutual exclusion reaches: {@link Guarantee#DISTRIBUTED}
   * on etcd, {@link Guarantee#SINGLE_DATABASE} on MariaDB/MySQL, {@link Guarantee#IN_PROCESS}
   * on the local backend.
   *
   * @return the guarantee of the backend this term runs on
   */
  Guarantee guarantee();

  /**
   * timeLeft is the time until the local deadline, read at call time on the monotonic clock:
   * what leader-only work may still take before it must have stopped. It is {@link
   * Duration#ZERO} once the term is no longer valid. A renewal moves the deadline, so the
   * value grows again after each confirmed renewal.
   *
   * @return the time left, never negative
   */
  Duration timeLeft();

  /**
   * isValid is true while the elector is MASTER for this term and the local deadline, read
   * at call time on the monotonic clock, has not passed.
   *
   * @return true when leader-only work may proceed at this instant
   */
  boolean isValid();

  /**
   * heartbeat tells the elector that this term's leader-only work is alive. With {@code
   * workStallTimeout} configured, a MASTER whose work goes that long without one (the first
   * time counting from election) resigns with {@link LeadershipEvent.Cause#WORK_STALLED};
   * without it a heartbeat does nothing. One volatile write: it never blocks, and a heartbeat
   * on a term that ended does nothing (it cannot keep a later term alive).
   */
  void heartbeat();

  /**
   * resign gives this term up, like {@link LeaderElector#resign()}, but only while it is still
   * the current term: a late call from an ended term's work never ends a newer one. It returns
   * at once; the loss (RESIGNED) reaches listeners and {@link #whenLost()} afterwards.
   */
  void resign();

  /**
   * whenLost completes with the event that ended this term (LOST causes or CLOSED); it is
   * completed on the dispatcher thread, after {@link #isValid()} has already turned false.
   *
   * @return a stage that completes once, with the event that ended the term
   */
  CompletionStage<LeadershipEvent> whenLost();
}
