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

  /** Participant rejects a null id and non-positive lease or revisions. */
  public Participant {
    Objects.requireNonNull(candidateId, "candidateId");
    if (leaseId <= 0 || createRevision <= 0 || modRevision < createRevision) {
      throw new IllegalArgumentException(
          "participant " + candidateId + ": leaseId " + leaseId + ", createRevision "
              + createRevision + ", modRevision " + modRevision);
    }
  }

  /** prefix is the common start of every participant key of {@code electionKey}. */
  public static String prefix(String electionKey) {
    return electionKey + SEGMENT;
  }

  /** keyOf is the participant key of the candidate on {@code leaseId}. */
  public static String keyOf(String electionKey, long leaseId) {
    return prefix(electionKey) + String.format("%016x", leaseId);
  }

  /**
   * leaseOf reads the lease id a participant key of {@code electionKey} spells, or 0 when
   * {@code key} is not one (another key under the same prefix).
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
