package dev.leasehold;

import java.util.Objects;

/**
 * LeaderInfo identifies one term of leadership as observed in the store.
 *
 * <p>Two terms are the same only if their fencing tokens are equal; the candidate id is a
 * label for humans and is never used to decide ownership (two processes may share one).
 * Immutable and thread-safe.
 *
 * @param candidateId the id the leader was configured with (the key's value)
 * @param fencingToken the key's mod revision when the term began (PROTOCOL.md §4.5); strictly
 *     increases from one term to the next
 * @param leaseId the store's id of the lease this term rides on (etcd: the lease the key is
 *     bound to); printed in hex, as etcdctl shows lease ids
 */
public record LeaderInfo(String candidateId, long fencingToken, long leaseId) {
  /**
   * LeaderInfo rejects a null candidate id and a non-positive fencing token.
   *
   * @param candidateId the leader's id, not null
   * @param fencingToken the term's token, positive
   * @param leaseId the store's lease id; not checked
   * @throws IllegalArgumentException for a fencing token of 0 or less
   */
  public LeaderInfo {
    Objects.requireNonNull(candidateId, "candidateId");
    if (fencingToken <= 0) {
      throw new IllegalArgumentException("fencingToken must be > 0, but was " + fencingToken);
    }
  }

  /** toString prints the lease id in hex, like every log line and {@code Leadership}. */
  @Override
  public String toString() {
    return "LeaderInfo[candidateId=" + candidateId + ", fencingToken=" + fencingToken
        + ", leaseId=" + Long.toHexString(leaseId) + "]";
  }
}
