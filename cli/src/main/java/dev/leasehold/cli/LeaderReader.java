package dev.leasehold.cli;

import java.time.Duration;
import java.util.Optional;

/**
 * LeaderReader reads who leads a key straight from the store, without campaigning: what
 * {@code status} and {@code watch} show.
 *
 * <p>Implementations are thread-safe; {@link #close()} releases the connection.
 */
interface LeaderReader extends AutoCloseable {
  /**
   * Snapshot is the key's leader as the store reports it. Immutable.
   *
   * @param leaderId the leader's candidate id, empty when nobody leads
   * @param fencingToken the term's fencing token (etcd: the key's mod revision; SQL: the epoch)
   * @param leaseId the etcd lease the key is bound to (0 on SQL)
   * @param ttlLeft the time left on the store's lease, on the store's clock (etcd reports whole
   *     seconds); not the leader's own local deadline, which comes earlier
   * @param grantedTtl the TTL the lease was granted with
   */
  record Snapshot(Optional<String> leaderId, long fencingToken, long leaseId, Duration ttlLeft,
      Duration grantedTtl) {
    /** NOBODY is the snapshot of a key nobody holds. */
    static final Snapshot NOBODY = new Snapshot(Optional.empty(), 0, 0, Duration.ZERO, Duration.ZERO);

    /** sameTerm tells whether two snapshots show the same term (or both nobody). */
    boolean sameTerm(Snapshot other) {
      return leaderId.isPresent() == other.leaderId.isPresent() && fencingToken == other.fencingToken;
    }
  }

  /**
   * read returns the current leader, waiting at most {@code timeout}.
   *
   * @throws Leasehold.StoreUnreachableException if the store does not answer in time
   */
  Snapshot read(Duration timeout);

  /**
   * onChange calls {@code wakeUp} (on a store thread; it must not block) whenever the key may
   * have changed, in addition to the caller's own polling; a no-op where the store cannot tell.
   */
  void onChange(Runnable wakeUp);

  /** close releases the connection; idempotent. */
  @Override
  void close();
}
