package dev.leasehold;

import java.util.Objects;

/**
 * Participant is one candidate in an etcd election's queue, as {@link
 * LeaderElector#participants()} lists it: the key {@code <electionKey>/candidates/
 * <lease id in 16 hex digits>} it put on its standby lease, with its candidate id as the value
 * (PROTOCOL.md §4.5). The queue is ordered by the keys' mod revisions: a candidate that put its
 * key again (a resigned MASTER does, in its handover) goes to the tail. The key lives exactly as
 * long as the lease, so an operator can tell from etcd which lease belongs to which candidate
 * ({@code etcdctl get --prefix <electionKey>/candidates/}). The local backend keeps the same
 * queue; the JDBC backend has none.
 *
 * <p>Immutable and thread-safe.
 *
 * @param candidateId the candidate's id (the key's value): a label, never proof of anything
 * @param leaseId the standby lease the key is bound to, which the key's name also spells
 * @param createRevision when the candidate joined the queue on this lease
 * @param modRevision its place in the queue: lower goes first
 */
public record Participant(String candidateId, long leaseId, long createRevision, long modRevision) {
  /** SEGMENT sits between the election key and a participant's lease id. */
  public static final String SEGMENT = "/candidates/";

  /**
   * Participant rejects a null id and non-positive lease or revisions.
   *
   * @param candidateId the id, not null
   * @param leaseId the lease id, positive
   * @param createRevision the revision the key was created at, positive
   * @param modRevision the revision the key was last put at, at least {@code createRevision}
   * @throws IllegalArgumentException for a non-positive lease id or create revision, or a mod
   *     revision below the create revision
   */
  public Participant {
    Objects.requireNonNull(candidateId, "candidateId");
    if (leaseId <= 0 || createRevision <= 0 || modRevision < createRevision) {
      throw new IllegalArgumentException(
          "participant " + candidateId + ": leaseId " + leaseId + ", createRevision "
              + createRevision + ", modRevision " + modRevision);
    }
  }

  /**
   * prefix is the common start of every participant key of {@code electionKey}.
   *
   * @param electionKey the election's key, as configured
   * @return {@code electionKey + "/candidates/"}
   */
  public static String prefix(String electionKey) {
    return electionKey + SEGMENT;
  }

  /**
   * keyOf is the participant key of the candidate on {@code leaseId}.
   *
   * @param electionKey the election's key, as configured
   * @param leaseId the candidate's standby lease
   * @return the key, its lease id in 16 lower-case hex digits
   */
  public static String keyOf(String electionKey, long leaseId) {
    return prefix(electionKey) + String.format("%016x", leaseId);
  }

  /**
   * leaseOf reads the lease id a participant key of {@code electionKey} spells, or 0 when
   * {@code key} is not one (another key under the same prefix).
   *
   * @param electionKey the election's key, as configured
   * @param key a key read from the store under {@link #prefix(String)}
   * @return the lease id, or 0 when {@code key} is not a participant key
   */
  public static long leaseOf(String electionKey, String key) {
    String prefix = prefix(electionKey);
    if (!key.startsWith(prefix) || key.length() != prefix.length() + 16) {
      return 0;
    }
    try {
      return Long.parseUnsignedLong(key.substring(prefix.length()), 16);
    } catch (NumberFormatException notHex) {
      return 0;
    }
  }
}
