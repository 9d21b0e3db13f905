package dev.leasehold.local;

import dev.leasehold.etcd.protocol.KeyRecord;
import java.util.Objects;

/**
 * LocalFaults does to a {@link LocalStore} what tests of leader-only code need to rehearse,
 * and each fault makes the affected electors report a documented event (the causes are
 * {@code LeadershipEvent.Cause}):
 *
 * <table>
 *   <caption>fault and what electors on the store report</caption>
 *   <tr><th>fault</th><th>the leader of that key</th><th>the other electors</th></tr>
 *   <tr><td>{@link #expireLease} / {@link #expireLeaseOf}</td>
 *       <td>LEASE_REVOKED (MASTER to FOLLOWER) within milliseconds: its watch or confirming
 *           read shows the key deleted and a lease probe finds the lease gone, or a renewal in
 *           flight is told the lease is gone (KEY_DELETED instead only if the probe takes
 *           longer than min(rpcTimeout, 250 ms))</td>
 *       <td>LEADER_CHANGED for the next leader, with a higher token (the old leader's loss
 *           event names it instead when the successor won first)</td></tr>
 *   <tr><td>{@link #deleteKey}</td>
 *       <td>KEY_DELETED (MASTER to FOLLOWER) within milliseconds: the probe finds its lease
 *           alive; it then releases that lease</td>
 *       <td>LEADER_CHANGED for the next leader, as above</td></tr>
 *   <tr><td>{@link #makeUnavailable}</td>
 *       <td>STORE_UNAVAILABLE (MASTER to MASTER) at its next renewal (within its renewal interval); if the
 *           outage outlasts its deadline, LEASE_EXPIRED_LOCALLY (MASTER to FOLLOWER) at the
 *           deadline</td>
 *       <td>STORE_UNAVAILABLE at their next request: their watches end at once and they
 *           re-read after a backoff</td></tr>
 *   <tr><td>{@link #makeAvailable}</td>
 *       <td>STORE_RECOVERED at its next request that succeeds (from MASTER if it kept its
 *           term)</td>
 *       <td>STORE_RECOVERED likewise; then, if nobody leads, one of them is ELECTED</td></tr>
 * </table>
 *
 * <p>Expiring a follower's standby lease produces no event: the follower grants another.
 * Expiring or deleting by hand is the one way around mutual exclusion, as on etcd: a new
 * leader can win before the old one has heard, which is what fencing tokens are for
 * ({@link LocalStore#runFenced}). Faults act on the store itself, like an operator on the
 * server, so they work while it is unavailable.
 *
 * <p>Thread-safe. Each method throws {@link IllegalStateException} once the store is closed.
 */
public final class LocalFaults {
  /** UNAVAILABLE is the reason every request fails with while the store is unavailable. */
  public static final String UNAVAILABLE = "local store unavailable (LocalFaults.makeUnavailable)";

  private final LocalStore store;

  LocalFaults(LocalStore store) {
    this.store = store;
  }

  /**
   * expireLease ends the lease now, as if its TTL had run out: its keys are deleted in one new
   * revision and watchers are told. Returns false when no such lease is alive.
   *
   * @param leaseId the lease to end, as {@link dev.leasehold.LeaderInfo#leaseId()} shows it
   * @return true when a live lease was ended
   */
  public boolean expireLease(long leaseId) {
    return store.fault(s -> s.revoke(leaseId));
  }

  /**
   * expireLeaseOf expires the lease the key is bound to; false when the key is absent.
   *
   * @param electionKey the election's key
   * @return true when the key was present and its lease ended
   */
  public boolean expireLeaseOf(String electionKey) {
    Objects.requireNonNull(electionKey, "electionKey");
    return store.fault(
        s -> {
          KeyRecord k = s.get(electionKey);
          return k != null && s.revoke(k.leaseId());
        });
  }

  /**
   * deleteKey deletes the key now, as an operator would, and leaves its lease alive; false
   * when the key is absent.
   *
   * @param electionKey the election's key
   * @return true when the key was present and deleted
   */
  public boolean deleteKey(String electionKey) {
    Objects.requireNonNull(electionKey, "electionKey");
    return store.fault(s -> s.deleteKey(electionKey));
  }

  /**
   * makeUnavailable makes every request from now on fail at once with {@link #UNAVAILABLE}
   * (electors see the failure without waiting for their RPC timeout) and ends every watch.
   * Leases keep expiring on time, as on a server cut off from all its clients. Idempotent.
   */
  public void makeUnavailable() {
    store.setUnavailable(UNAVAILABLE);
  }

  /** makeAvailable ends {@link #makeUnavailable}: requests are served again. Idempotent. */
  public void makeAvailable() {
    store.setUnavailable(null);
  }
}
