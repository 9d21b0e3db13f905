package dev.leasehold.test;

import dev.leasehold.local.LocalStore;
import dev.leasehold.test.engine.SimClock;
import dev.leasehold.test.engine.SimScheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * VirtualStore is core's local store (the in-process backend, with etcd's lease semantics) on a
 * {@link VirtualTime}: its leases expire on the virtual clock, and the electors built from it
 * ({@link #elector()}) run core's real runtime and etcd protocol machine on that clock, with
 * the same events, fencing tokens, {@link dev.leasehold.Leadership}, watchdog, resign and close
 * as in production. {@link #faults()} does to it, in one call each, what a store, a network or a
 * machine can do to a leader.
 *
 * <p>Why the local store and not a simulated etcd cluster: it is a backend users run, with its
 * own tests in core, and what a user's leader-only code sees (events, the deadline, the token)
 * is the same on every backend. Store-specific behaviour (etcd's raft, SQL's server clock) is
 * covered by Leasehold's own simulation and integration tests, not by this kit.
 *
 * <p>Not thread-safe: the test thread that drives the time uses it.
 */
public final class VirtualStore implements AutoCloseable {
  private final VirtualTime time;
  private final LocalStore store;
  private final VirtualFaults faults;
  private final List<VirtualElector> electors = new ArrayList<>();

  private VirtualStore(VirtualTime time) {
    this.time = time;
    // The store's own thread, on true time.
    SimScheduler loop = time.thread(new SimClock(0, 1.0));
    this.store = LocalBackend.store(loop);
    this.faults = new VirtualFaults(this);
  }

  /**
   * create makes an empty store on {@code time}.
   *
   * @param time the virtual time the store and its electors run on
   * @return the store, with no key
   */
  public static VirtualStore create(VirtualTime time) {
    Objects.requireNonNull(time, "time");
    return new VirtualStore(time);
  }

  /**
   * elector starts configuring an elector of this store; its settings are those of every backend.
   *
   * @return a builder of an elector on this store
   */
  public VirtualElector.Builder elector() {
    return new VirtualElector.Builder(this);
  }

  /**
   * faults injects the store's, the network's and the machines' faults, one call each.
   *
   * @return the faults of this store and its electors
   */
  public VirtualFaults faults() {
    return faults;
  }

  /**
   * local is the store itself, for what {@link LocalStore} offers: {@link
   * LocalStore#leaderOf}, {@link LocalStore#runFenced} (a fenced effect),
   * {@link LocalStore#isCurrentTerm}, and its own faults.
    *
    * @return the local store underneath
   */
  public LocalStore local() {
    return store;
  }

  /**
   * time is the virtual time the store runs on.
   *
   * @return the store's virtual time
   */
  public VirtualTime time() {
    return time;
  }

  /**
   * electors are the electors built from this store so far, in the order they were built.
   *
   * @return the electors, oldest first; a copy
   */
  public List<VirtualElector> electors() {
    return List.copyOf(electors);
  }

  /**
   * close closes every elector that is still open (running virtual time while they release
   * their leases), ends their simulated threads, then closes the store; idempotent.
   */
  @Override
  public void close() {
    for (VirtualElector e : electors) {
      e.close();
    }
    for (VirtualElector e : electors) {
      e.endThreads();
    }
    store.close();
  }

  void add(VirtualElector e) {
    electors.add(e);
  }
}
