package dev.leasehold;

import dev.leasehold.runtime.WhileLeader;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * LeaderElector elects one leader among the instances of a service and tells each instance
 * when it gains or loses leadership.
 *
 * <p>Guarantees, given the store's own guarantees and a local clock whose rate error stays
 * under the configured bound: at most one instance at a time sees {@link #isLeader()} true
 * (no overlap), and fencing tokens strictly increase from term to term. Not guaranteed: that
 * a process paused for longer than the safety margin stops acting in time (guard effects
 * with the fencing token), and no overlap after an operator deletes the key or revokes the
 * lease by hand.
 *
 * <p>Thread-safe: every method may be called from any thread, including from a listener.
 */
public interface LeaderElector extends AutoCloseable {
  /**
   * config is the validated backend-neutral configuration this elector runs with.
   *
   * @return the config, never null; the same object for the elector's whole life
   */
  ElectorConfig config();

  /** start begins campaigning; calling it again, or after {@link #close()}, does nothing. */
  void start();

  /**
   * state is the current role; CANDIDATE is transient.
   *
   * @return the role at call time; {@link ElectorState#STOPPED} once closed
   */
  ElectorState state();

  /**
   * isLeader is true only while this instance is MASTER and its local deadline, read at call
   * time, has not passed.
   *
   * @return true when leader-only work may proceed at this instant
   */
  boolean isLeader();

  /**
   * currentLeader is the leader this instance last saw (itself when MASTER), if any.
   *
   * @return the leader seen last, or empty when none is known (none seen yet, or the key is gone)
   */
  Optional<LeaderInfo> currentLeader();

  /**
   * health is a snapshot of this elector's health (role, backend, leader, the age of its last
   * confirmed renewal, the store's reachability, the fallback in force) with a verdict,
   * {@link ElectorHealth#healthy()}, for a health endpoint. It never blocks and takes no lock.
   *
   * @return a new snapshot, never null
   */
  ElectorHealth health();

  /**
   * leadership is the current term's handle while this instance is MASTER.
   *
   * @return the current term, or empty when this instance is not MASTER
   */
  Optional<Leadership> leadership();

  /**
   * whenLeading completes with this instance's term once it leads (at once if it leads now),
   * on the dispatcher thread; it completes exceptionally with a
   * {@link java.util.concurrent.CancellationException} if the elector closes first. Like an
   * event, the term may already be over when a callback runs: check
   * {@link Leadership#isValid()}.
   *
   * @return a stage that completes with the term, or exceptionally if the elector closes first
   */
  CompletionStage<Leadership> whenLeading();

  /**
   * awaitLeadership blocks until this instance leads and returns its term, or empty once
   * {@code timeout} passes or the elector closes first.
   *
   * @param timeout how long to wait at most; zero or negative checks once without waiting
   * @return the term, or empty when the time ran out or the elector closed
   * @throws InterruptedException if the calling thread is interrupted while waiting
   */
  Optional<Leadership> awaitLeadership(Duration timeout) throws InterruptedException;

  /**
   * runWhileLeader waits until this instance leads, then runs {@code task} with the term on a
   * worker thread of its own (never the event loop or the dispatcher), and returns how it
   * ended; it is {@link #runWhileLeader(LeaderTask, Duration)} with a grace of the RPC timeout.
   *
   * @param <T> what the task returns
   * @param task the leader-only work, not null
   * @return how the run ended: the task's value or failure, and whether it was interrupted or
   *     resigned
   * @throws InterruptedException if the calling thread is interrupted while waiting to lead or
   *     while the task runs
   */
  default <T> LeaderTaskOutcome<T> runWhileLeader(LeaderTask<T> task) throws InterruptedException {
    return WhileLeader.run(this, task, config().rpcTimeout(), WhileLeader.REAL);
  }

  /**
   * runWhileLeader waits until this instance leads (as long as it takes), then runs {@code
   * task} with the term on a new daemon worker thread that it owns, never the event loop or the
   * dispatcher, while the calling thread watches the term. It interrupts the worker when the
   * term ends, and in any case once only {@code grace} is left before the local deadline (no
   * renewal confirmed for that long), so the task has {@code grace} to stop before the term
   * can end. A task still running {@code grace} after its interrupt is reported: one WARN line
   * and {@link LeaderTaskOutcome#ignoredInterrupt()}; the runner then waits for it to return.
   *
   * <p>When the task returns or throws while the term is still valid, the term is resigned
   * ({@link Leadership#resign()}), as with Curator's LeaderSelector: a term nobody works in only
   * keeps the other instances out. The elector stays a candidate; call runWhileLeader again to
   * run the next term's work. Nothing the task throws escapes: it is in {@link
   * LeaderTaskOutcome#failure()}.
   *
   * @param <T> what the task returns
   * @param grace how long before the local deadline the task is interrupted, and how long it
   *     then has to stop before it is reported; at least 0 and less than leaseTtl/3, so that
   *     renewals in good health never trigger it
   * @param task the leader-only work, not null
   * @return how the run ended: the task's value or failure, and whether it was interrupted or
   *     resigned
   * @throws InterruptedException if the calling thread is interrupted: while waiting to lead
   *     (no task ran), or while the task ran (it was interrupted, given {@code grace} to stop,
   *     and its term resigned)
   * @throws java.util.concurrent.CancellationException if the elector is or becomes closed
   *     before this instance leads
   * @throws IllegalArgumentException if {@code grace} is out of range
   */
  default <T> LeaderTaskOutcome<T> runWhileLeader(LeaderTask<T> task, Duration grace)
      throws InterruptedException {
    return WhileLeader.run(this, task, grace, WhileLeader.REAL);
  }

  /**
   * participants lists the election's candidates in queue order, head first (PROTOCOL.md §4.5),
   * read from the store (on etcd one linearizable read of the key and the queue's prefix): on
   * etcd and local, every candidate with a standby lease; empty for JDBC, and when the read
   * failed. The stage completes on the dispatcher thread, with the empty list once the elector
   * is closed.
   *
   * @return a stage that completes with the candidates, head first; the empty list when the read
   *     failed
   */
  default CompletionStage<List<Participant>> participants() {
    return CompletableFuture.completedFuture(List.of());
  }

  /**
   * transferTo hands this instance's term to the live candidate {@code candidateId} (PROTOCOL.md
   * §4.5): the leader steps down first ({@code isLeader()} is false before the call returns the
   * stage's outcome, and listeners see {@link LeadershipEvent.Cause#TRANSFERRED}), then gives the
   * key to that candidate's standby lease in one transaction, fenced on this term's token and on
   * the candidate's participant key, and sits out the resign hold-off. The candidate then leads
   * with a higher fencing token. On etcd and the local store, with standby leases (the default).
   *
   * <p>The stage completes on the dispatcher thread: with the new leader (its id, fencing token
   * and lease) once the store committed the key to it; or with an {@link IllegalStateException}
   * saying why, and the term kept, when this instance is not the leader, when {@code candidateId}
   * is not a live participant of the queue the leader sees ({@link #participants()}), or is this
   * instance; or, the term already given up, when the transaction was refused (the candidate's
   * lease ended) or its outcome is unknown; the lease is then released as by {@link #resign()},
   * and the election goes on as after a resign.
   *
   * @param candidateId the candidate to lead next, as in {@link Participant#candidateId()}
   * @return a stage that completes with the new leader, or fails with the reason
   * @throws IllegalArgumentException if {@code candidateId} is null or blank
   * @throws UnsupportedOperationException on a backend whose protocol keeps no queue of live
   *     candidates (SQL, an election on a session), naming the backend
   */
  default CompletionStage<LeaderInfo> transferTo(String candidateId) {
    throw new UnsupportedOperationException(getClass().getName() + " does not hand terms to named candidates");
  }

  /**
   * resign gives leadership up now if held (on etcd with standby leases the key goes to the
   * queue's head in one transaction; otherwise the lease is revoked so others take over at
   * once) and keeps this instance a candidate for later terms; it does nothing otherwise.
   */
  void resign();

  /**
   * onLeadershipChanged subscribes a listener, first telling it the current state (cause
   * SUBSCRIBED), on the elector's dispatcher thread. On an elector already closed, that first
   * (and last) event, cause SUBSCRIBED with {@code from == to == STOPPED}, runs on the calling
   * thread.
   *
   * @param listener the listener, not null; it must not block the dispatcher for long
   * @return the subscription; close it to stop the events
   */
  Subscription onLeadershipChanged(LeadershipListener listener);

  /**
   * onLeadershipChanged subscribes a listener whose events run on the given executor, one at
   * a time and in order even if the executor has many threads. Events reach the executor
   * through the dispatcher thread, so a same-thread executor ({@code Runnable::run}) runs the
   * listener on the dispatcher, never on the elector's event loop.
   *
   * @param listener the listener, not null
   * @param executor where the listener runs, not null
   * @return the subscription; close it to stop the events
   */
  Subscription onLeadershipChanged(LeadershipListener listener, Executor executor);

  /**
   * onRenewal subscribes to the confirmed renewals of the lease this instance holds (for a
   * latency metric); each is reported once, in order, on the dispatcher thread, never on the
   * event loop. A listener that throws is logged and stays subscribed.
   *
   * @param listener called with each confirmed renewal, not null
   * @return the subscription; close it to stop the reports
   */
  Subscription onRenewal(Consumer<Renewal> listener);

  /**
   * close steps down if leading, releases this instance's lease (on etcd its key goes with
   * it) and stops the elector. It waits for the store at most about 3 × the RPC timeout (calls
   * still in flight, such as a lease grant, then the releases), then up to 5 s each for its
   * threads to stop. It is idempotent and never throws; a second call returns once the first is done
   * (at once when made from a listener on the dispatcher thread).
   */
  @Override
  void close();

  /**
   * closeAsync begins closing like {@link #close()} without waiting; the stage completes once
   * the lease was released (or given up on) and the elector's threads were told to stop.
   * Idempotent.
   *
   * @return a stage that completes once closing is done, also when an earlier call began it
   */
  CompletionStage<Void> closeAsync();
}
