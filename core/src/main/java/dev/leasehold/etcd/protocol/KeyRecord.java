package dev.leasehold.etcd.protocol;

import java.util.Objects;

/**
 * KeyRecord is the election key as read from the store: who holds it, through which lease,
 * since which revision. The holder's fencing token is the key's mod revision: the revision at
 * which the key became the holder's, by a compare-and-swap that created it (then it equals the
 * create revision) or by a handover from the previous holder (PROTOCOL.md §4.5).
 *
 * <p>Immutable and thread-safe.
 *
 * @param holderId the key's value: the holder's candidate id (a label, never proof of ownership)
 * @param leaseId the lease the key is bound to (0 if none, which only an operator can cause)
 * @param createRevision the key's create revision
 * @param modRevision the key's last modification revision: the holder's fencing token
 */
public record KeyRecord(String holderId, long leaseId, long createRevision, long modRevision) {
  /**
   * KeyRecord rejects a null holder and a non-positive create revision.
   *
   * @param holderId the holder's candidate id, not null
   * @param leaseId the lease the key is bound to, or 0
   * @param createRevision the create revision, positive
   * @param modRevision the mod revision
   * @throws IllegalArgumentException for a create revision of 0 or less
   */
  public KeyRecord {
    Objects.requireNonNull(holderId, "holderId");
    if (createRevision <= 0) {
      throw new IllegalArgumentException("createRevision must be > 0, but was " + createRevision);
    }
  }

  /**
   * token is the holder's fencing token: the key's mod revision.
   *
   * @return the key's mod revision
   */
  public long token() {
    return modRevision;
  }
}
