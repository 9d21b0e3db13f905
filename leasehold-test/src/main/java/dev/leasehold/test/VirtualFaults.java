package dev.leasehold.test;

import dev.leasehold.LeaderElector;
import dev.leasehold.local.LocalFaults;
import java.time.Duration;
import java.util.Objects;

/**
 * VirtualFaults does to a {@link VirtualStore} and its electors, in one call each, what a store,
 * a network or a machine can do to a leader: the store's faults act on the store itself (as an
 * operator on the server would), the others on one instance. A fault with a duration ends by
 * itself that much virtual time later, when the test runs the time on.
 *
 * <p>Not thread-safe: the test thread that drives the time uses it.
 */
public final class VirtualFaults {
  private final VirtualStore store;
  // The end of the outage under way (true time), or none.
  private Long outageEnds;

  VirtualFaults(VirtualStore store) {
    this.store = store;
  }

  /**
   * expireLease expires the lease that {@code electionKey} is bound to, as etcd does when its
   * TTL runs out unrenewed; false when the key is absent. The leader sees LEASE_REVOKED.
    *
    * @param electionKey the election key whose lease to expire
    * @return true when the key was bound to a lease that is now gone
   */
  public boolean expireLease(String electionKey) {
    return local().expireLeaseOf(electionKey);
  }

  /**
   * deleteKey deletes the election key, as an operator could; false when it is absent.
   *
   * @param electionKey the election key to delete
   * @return true when the key existed
   */
  public boolean deleteKey(String electionKey) {
    return local().deleteKey(electionKey);
  }

  /**
   * outage makes every request to the store fail for {@code duration}, while leases go on
   * expiring: the leader sees STORE_UNAVAILABLE, then LEASE_EXPIRED_LOCALLY at its deadline if
   * the outage outlasts it. Overlapping outages end with the last.
    *
    * @param duration how long the store refuses every request, in virtual time
   */
  public void outage(Duration duration) {
    long end = end(duration, "duration");
    local().makeUnavailable();
    if (outageEnds == null || end - outageEnds > 0) {
      outageEnds = end;
      store.time().at(end, () -> {
        if (outageEnds != null && outageEnds == end) {
          outageEnds = null;
          local().makeAvailable();
        }
      });
    }
  }

  /**
   * partition cuts {@code instance} off from the store for {@code duration}: its requests and
   * replies are lost (it sees its RPC timeouts), and its watches fail. The store goes on, and the
   * other instances reach it.
    *
    * @param instance the elector to cut off; one of this store's
    * @param duration how long the cut lasts, in virtual time
   */
  public void partition(LeaderElector instance, Duration duration) {
    VirtualElector e = own(instance);
    long end = end(duration, "duration");
    e.partition(true);
    store.time().at(end, () -> e.partition(false));
  }

  /**
   * pause stops {@code instance} for {@code duration}, as a stop-the-world garbage collection or
   * a suspended VM would: its event loop, its listeners and its {@link VirtualElector#executor()}
   * run nothing, while its clock, the store's leases and the other instances go on. A pause past
   * the leader's deadline lets another instance win before the paused one wakes up; the paused
   * one then sees LEASE_EXPIRED_LOCALLY first thing.
    *
    * @param instance the elector to stop; one of this store's
    * @param duration how long it stays stopped, in virtual time
   */
  public void pause(LeaderElector instance, Duration duration) {
    VirtualElector e = own(instance);
    long end = end(duration, "duration");
    e.pause(true);
    store.time().at(end, () -> e.pause(false));
  }

  /**
   * crash kills {@code instance} for good, as a process killed with SIGKILL or a machine that
   * loses power: it sends nothing more (no renewal, no release), and its event loop, listeners,
   * executor and simulated threads stop. Its lease stays in the store until its TTL runs out on
   * virtual time; then another instance can win. Closing the crashed elector (or its store)
   * releases nothing.
   *
   * @param instance the elector to kill; one of this store's
   */
  public void crash(LeaderElector instance) {
    own(instance).crash();
  }

  /**
   * drift makes {@code instance}'s clock run at {@code rate} times the true rate from now on (1.0
   * is exact; 1.01 runs 1% fast). The elector's deadline allows for {@code maxDriftRate}; a clock
   * slower than that allows ({@code rate < 1 - maxDriftRate}) can make it lead past the store's
   * expiry, which is what fencing is for.
    *
    * @param instance the elector whose clock drifts; one of this store's
    * @param rate the clock's rate against true time; positive, 1.0 for exact
   */
  public void drift(LeaderElector instance, double rate) {
    VirtualElector e = own(instance);
    if (!(rate > 0) || Double.isInfinite(rate)) {
      throw new IllegalArgumentException("rate must be > 0 and finite, but was " + rate);
    }
    e.drift(rate);
  }

  private LocalFaults local() {
    return store.local().faults();
  }

  private long end(Duration d, String field) {
    VirtualTime.requireNonNegative(d, field);
    return store.time().nanoTime() + d.toNanos();
  }

  private VirtualElector own(LeaderElector instance) {
    Objects.requireNonNull(instance, "instance");
    if (!(instance instanceof VirtualElector e) || e.store() != store) {
      throw new IllegalArgumentException(
          "instance must be an elector built by this VirtualStore, but was " + instance);
    }
    return e;
  }
}
