package dev.leasehold.local;

import dev.leasehold.LeaderInfo;
import dev.leasehold.Leadership;
import dev.leasehold.etcd.protocol.KeyRecord;
import dev.leasehold.runtime.Scheduler;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * LocalStore is an in-process store with etcd's lease semantics, for the electors of one JVM
 * that share it (see {@link LocalLeaderElector}): leases whose TTLs run out on the monotonic
 * clock ({@link System#nanoTime()}), keys bound to leases, one revision counter, the
 * compare-and-swap that creates a key only when absent, the election's queue of participant
 * keys and the handover transaction (PROTOCOL.md §4.5), keep-alives, linearizable reads and
 * watches. A key's mod revision is its holder's fencing token (a campaign's create, a
 * handover's put), so tokens strictly increase.
 *
 * <p>A lease expires exactly when its TTL has passed since the store applied its grant or
 * last keep-alive, never earlier: every access first expires what is due, and a sweeper
 * expires leases on time (deleting their keys and telling watchers) when nobody calls. An
 * elector steps down by its local deadline (send time + TTL × (1 − maxDriftRate) − margin),
 * which comes before that, so electors sharing a store never lead at once.
 *
 * <p>It grants every TTL as asked (whole seconds, at least 1 s; etcd raises small ones to its
 * minimum). The one raft term it reports never changes. While {@link LocalFaults#makeUnavailable}
 * holds, every request fails at once with a reason, and leases keep expiring on time.
 *
 * <p>Not covered: anything outside this object. Electors in other processes, other JVMs or
 * other class loaders (each with its own {@code LocalStore}) elect their own leaders; use etcd
 * for those. Nothing is persisted: a new store starts empty.
 *
 * <p>Thread-safe. All state sits behind one lock; requests from electors are applied on the
 * store's daemon thread, and replies and watch events are delivered there, outside the lock,
 * in the order of the changes. {@link #faults()} injects failures for tests.
 */
public final class LocalStore implements AutoCloseable {
  private static final AtomicInteger SEQ = new AtomicInteger();
  // A sweep may run up to this much after an expiry (late is safe; early never happens).
  private static final long MIN_SWEEP_NANOS = 1_000_000L;
  private static final long IDLE_SWEEP_NANOS = 60_000_000_000L;

  /** The etcd "raft term" this store reports; it has no leader to change. */
  static final long RAFT_TERM = 1;

  private final Object lock = new Object();
  private final LongSupplier clock;
  private final ScheduledThreadPoolExecutor thread;
  private final Executor work;
  // When set, the store's thread is a scheduler's loop: the test kit's virtual time.
  private final Scheduler loop;
  private final LocalFaults faults = new LocalFaults(this);

  // Guarded by lock.
  private final StoreState state;
  private String unavailable;
  private boolean closed;
  private Scheduler.Cancellable sweep;
  private long sweepAt;
  private long sweepSeq;

  /**
   * create makes an empty store with its own daemon thread, on {@link System#nanoTime()}.
   *
   * @return a new store, open; close it when done to stop its thread
   */
  public static LocalStore create() {
    return new LocalStore(System::nanoTime, null);
  }

  /**
   * LocalStore reads time from {@code clock} and runs requests and deliveries on {@code work}
   * (its own thread when null); for tests.
   */
  LocalStore(LongSupplier clock, Executor work) {
    this.clock = Objects.requireNonNull(clock, "clock");
    String name = "leasehold-local-store-" + SEQ.incrementAndGet();
    this.thread = new ScheduledThreadPoolExecutor(1, daemon(name));
    thread.setRemoveOnCancelPolicy(true);
    thread.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    this.work = work != null ? work : thread;
    this.loop = null;
    this.state = new StoreState(this::deliver);
  }

  /**
   * LocalStore runs on {@code loop}: its clock, requests, deliveries and sweeps; for the test
   * kit ({@code dev.leasehold.test}), which reaches it through the package it is opened to.
   */
  LocalStore(Scheduler loop) {
    this.loop = Objects.requireNonNull(loop, "loop");
    this.clock = loop::nanoTime;
    this.thread = null;
    this.work = loop::execute;
    this.state = new StoreState(this::deliver);
  }

  /**
   * faults is the handle that expires leases, deletes keys and takes the store down, for tests.
   *
   * @return the fault handle of this store
   */
  public LocalFaults faults() {
    return faults;
  }

  /**
   * leaderOf is the key's holder as the store sees it now (candidate id, fencing token, lease),
   * or empty when the key is absent. It answers even while the store is unavailable.
   *
   * @param electionKey the election's key
   * @return the holder, or empty when the key is absent
   */
  public Optional<LeaderInfo> leaderOf(String electionKey) {
    Objects.requireNonNull(electionKey, "electionKey");
    return inspect(s -> Optional.ofNullable(s.get(electionKey)).map(LocalStore::info));
  }

  /**
   * leaseCount is the number of live leases (a follower's standby lease counts); for tests.
   *
   * @return the number of live leases
   */
  public int leaseCount() {
    return inspect(StoreState::leaseCount);
  }

  /**
   * keyCount is the number of keys present, participant keys included; for tests.
   *
   * @return the number of keys present
   */
  public int keyCount() {
    return inspect(StoreState::keyCount);
  }

  /**
   * isCurrentTerm is true while the term's key exists with the term's fencing token as its
   * mod revision: the compare etcd makes for {@code EtcdFencing}. A term whose key was handed
   * over is no longer current. It is the store's view,
   * not the elector's deadline; check {@link Leadership#isValid()} as well.
   *
   * @param term a term won on this store
   * @return true while the store still holds the key for {@code term}
   * @throws IllegalStateException while the store is unavailable or after it was closed, as
   *     a store call would fail
   */
  public boolean isCurrentTerm(Leadership term) {
    Objects.requireNonNull(term, "term");
    return access(s -> current(s, term));
  }

  /**
   * runFenced runs {@code effect} only if the term is current ({@link #isCurrentTerm}), with
   * the check and the effect atomic under the store's lock, and returns whether it ran; so no
   * effect of a replaced leader runs after its successor was elected. Keep the effect short:
   * it holds up every elector's store requests (not their event loops) while it runs, and it
   * must not wait for an elector event or store reply. An exception from the effect propagates.
   *
   * @param term a term won on this store
   * @param effect what to run while {@code term} is current, short and non-blocking
   * @return true when {@code effect} ran, false when the term was no longer current
   * @throws IllegalStateException while the store is unavailable or after it was closed
   */
  public boolean runFenced(Leadership term, Runnable effect) {
    Objects.requireNonNull(term, "term");
    Objects.requireNonNull(effect, "effect");
    return access(
        s -> {
          if (!current(s, term)) {
            return false;
          }
          effect.run();
          return true;
        });
  }

  /**
   * close ends every watch, makes every later request fail with "local store closed" and lets
   * the store's thread end; idempotent. Close the electors first: one still running steps down
   * by its deadline, and none can win again.
   */
  @Override
  public void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      state.failWatches("local store closed");
      cancelSweep();
    }
    // Deliveries already queued still run.
    if (loop != null) {
      loop.shutdown();
    } else {
      thread.shutdown();
    }
  }

  // ---- for the port and the faults ----

  /**
   * request applies {@code op} on the store thread, under the lock, after expiring what is
   * due, and completes the future there, outside the lock. While the store is unavailable or
   * closed it completes with {@code failed} of the reason instead.
   */
  <T> CompletableFuture<T> request(Function<StoreState, T> op, Function<String, T> failed) {
    CompletableFuture<T> reply = new CompletableFuture<>();
    Runnable task =
        () ->
            settle(
                reply,
                () -> {
                  synchronized (lock) {
                    String down = closed ? "local store closed" : unavailable;
                    if (down != null) {
                      return failed.apply(down);
                    }
                    state.expireDue(clock.getAsLong());
                    T result = op.apply(state);
                    armSweeper();
                    return result;
                  }
                });
    try {
      work.execute(task);
    } catch (RejectedExecutionException closedAlready) {
      // The store thread is gone; answer from a pool thread, never the caller's.
      CompletableFuture.runAsync(() -> settle(reply, () -> failed.apply("local store closed")));
    }
    return reply;
  }

  /** settle completes {@code reply} outside the lock with what {@code result} returns or throws. */
  private static <T> void settle(CompletableFuture<T> reply, Supplier<T> result) {
    T value;
    try {
      value = result.get();
    } catch (RuntimeException e) {
      reply.completeExceptionally(e);
      return;
    }
    reply.complete(value);
  }

  /** hasLease is true while the lease is alive; for tests. */
  boolean hasLease(long leaseId) {
    return inspect(s -> s.isAlive(leaseId));
  }

  /** isClosed is true once {@link #close()} began. */
  boolean isClosed() {
    synchronized (lock) {
      return closed;
    }
  }

  /** now is the store's clock; read it only under the lock, within an operation. */
  long now() {
    return clock.getAsLong();
  }

  /** fault applies {@code op} at once on the calling thread, ignoring unavailability. */
  <T> T fault(Function<StoreState, T> op) {
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("local store closed");
      }
      state.expireDue(clock.getAsLong());
      T result = op.apply(state);
      armSweeper();
      return result;
    }
  }

  /** setUnavailable takes the store down with {@code reason} (ending every watch), or up (null). */
  void setUnavailable(String reason) {
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("local store closed");
      }
      unavailable = reason;
      if (reason != null) {
        state.failWatches(reason);
      }
    }
  }

  // ---- internals ----

  private <T> T inspect(Function<StoreState, T> op) {
    synchronized (lock) {
      state.expireDue(clock.getAsLong());
      T result = op.apply(state);
      if (!closed) {
        armSweeper();
      }
      return result;
    }
  }

  private <T> T access(Function<StoreState, T> op) {
    synchronized (lock) {
      String down = closed ? "local store closed" : unavailable;
      if (down != null) {
        throw new IllegalStateException(down);
      }
      state.expireDue(clock.getAsLong());
      T result = op.apply(state);
      armSweeper();
      return result;
    }
  }

  private static boolean current(StoreState s, Leadership term) {
    KeyRecord k = s.get(term.electionKey());
    return k != null && k.token() == term.fencingToken();
  }

  /** deliver queues a reply or watch event for the store thread; called under the lock. */
  private void deliver(Runnable r) {
    try {
      work.execute(r);
    } catch (RejectedExecutionException closedAlready) {
      // Nobody listens to a closed store.
    }
  }

  /** armSweeper makes sure a sweep runs at the earliest lease expiry; called under the lock. */
  private void armSweeper() {
    long now = clock.getAsLong();
    long next = state.nextExpiry(now + IDLE_SWEEP_NANOS);
    if (sweepArmed() && sweepAt - next <= 0) {
      return;
    }
    cancelSweep();
    sweepAt = next;
    long seq = ++sweepSeq;
    long delay = Math.max(MIN_SWEEP_NANOS, next - now);
    try {
      sweep = schedule(() -> sweep(seq), delay);
    } catch (RejectedExecutionException closedAlready) {
      sweep = null;
    }
  }

  /**
   * schedule runs {@code task} on the store's thread after {@code delayNanos}: its own thread's
   * timer, or the loop's when the store runs on one.
   */
  private Scheduler.Cancellable schedule(Runnable task, long delayNanos) {
    if (loop != null) {
      return loop.schedule(task, delayNanos);
    }
    ScheduledFuture<?> f = thread.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    return () -> f.cancel(false);
  }

  /**
   * sweepArmed is true while a sweep is scheduled and has not run (a sweep that runs clears it);
   * called under the lock.
   */
  private boolean sweepArmed() {
    return sweep != null;
  }

  private void cancelSweep() {
    if (sweep != null) {
      sweep.cancel();
      sweep = null;
    }
  }

  private void sweep(long seq) {
    synchronized (lock) {
      if (closed) {
        return;
      }
      if (seq == sweepSeq) {
        sweep = null;
      }
      // Time runs on while the store is unavailable: leases expire as on a server cut off
      // from all its clients.
      state.expireDue(clock.getAsLong());
      armSweeper();
    }
  }

  private static LeaderInfo info(KeyRecord k) {
    return new LeaderInfo(k.holderId(), k.token(), k.leaseId());
  }

  private static ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}
