package dev.leasehold.etcd.protocol;

import java.util.Objects;

/**
 * SessionMember is a session that spreads its elections, as its member key {@code M(lease) =
 * prefix + "members/" + lease} shows it (PROTOCOL.md §11.7): the key lives on the session's
 * lease, so a member exists exactly as long as its lease.
 *
 * <p>Immutable and thread-safe.
 *
 * @param leaseId the member's session lease, which the elections moved to it are put on
 * @param candidateId the member's candidate id, the value a move writes into the election's key
 * @param weight the member's weight, at least 1: its share grows with it
 * @param createRevision the member key's create revision, which a move compares so that it
 *     lands only on a member still there
 */
public record SessionMember(long leaseId, String candidateId, int weight, long createRevision) {
  /** MEMBERS is the sub-prefix of the member keys, under the session's prefix. */
  public static final String MEMBERS = "members/";

  /** SessionMember rejects a null id, a non-positive weight, lease or create revision. */
  public SessionMember {
    Objects.requireNonNull(candidateId, "candidateId");
    if (leaseId <= 0 || weight < 1 || createRevision <= 0) {
      throw new IllegalArgumentException(
          "a member needs a lease, a weight and a create revision > 0, but had " + leaseId + ", " + weight
              + ", " + createRevision);
    }
  }

  /** key is the member key of the session lease {@code leaseId} under {@code prefix}. */
  public static String key(String prefix, long leaseId) {
    return prefix + MEMBERS + Long.toHexString(leaseId);
  }

  /** value is what a member key holds: the weight, a space, the candidate id. */
  public static String value(int weight, String candidateId) {
    return weight + " " + candidateId;
  }

  /**
   * parse reads a member key's value; null if it is not one (a key an operator wrote by hand
   * is ignored, never a member).
   */
  public static SessionMember parse(long leaseId, String value, long createRevision) {
    int space = value.indexOf(' ');
    if (space <= 0 || space == value.length() - 1 || leaseId <= 0 || createRevision <= 0) {
      return null;
    }
    try {
      int weight = Integer.parseInt(value.substring(0, space));
      return weight < 1 ? null : new SessionMember(leaseId, value.substring(space + 1), weight, createRevision);
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
