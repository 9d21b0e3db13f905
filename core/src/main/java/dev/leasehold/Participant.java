package dev.leasehold;

import java.util.Comparator;
import java.util.Objects;

/**
 * Participant is one candidate in an etcd election's queue, as {@link
 * LeaderElector#participants()} lists it: the key {@code <electionKey>/candidates/<name>} it put
 * on its standby lease, with its candidate id as the value (PROTOCOL.md §4.5). The name spells
 * the candidate's priority and its lease id ({@link #keyOf(String, long, int)}), so that the
 * keys' order by name is the order of priority, highest first. The queue is ordered by
 * priority, then by the keys' mod revisions: a candidate that put its key again (a resigned
 * MASTER does, in its handover) goes to the tail of its priority. The key lives exactly as
 * long as the lease, so an operator can tell from etcd which lease belongs to which candidate
 * ({@code etcdctl get --prefix <electionKey>/candidates/}). The local backend keeps the same
 * queue; the JDBC backend has none.
 *
 * <p>Immutable and thread-safe.
 *
 * @param candidateId the candidate's id (the key's value): a label, never proof of anything
 * @param leaseId the standby lease the key is bound to, which the key's name also spells
 * @param createRevision when the candidate joined the queue on this lease
 * @param modRevision its place among the candidates of its priority: lower goes first
 * @param priority the candidate's priority ({@code ElectorConfig.priority()}): higher goes first
 */
public record Participant(
    String candidateId, long leaseId, long createRevision, long modRevision, int priority) {
  /** SEGMENT sits between the election key and a participant's name. */
  public static final String SEGMENT = "/candidates/";

  /**
   * ORDER is the queue's order (PROTOCOL.md §4.5): higher priority first, then lower mod
   * revision (longer queued), then lower lease id.
   */
  public static final Comparator<Participant> ORDER =
      Comparator.comparingInt(Participant::priority).reversed()
          .thenComparingLong(Participant::modRevision)
          .thenComparingLong(Participant::leaseId);

  private static final int HEX_LEASE = 16;
  // A non-zero priority's name: a sign that sorts before ('+') or after ('~') every hex digit,
  // 8 hex digits that sort higher priorities first, a dot, then the lease.
  private static final int RANKED_LENGTH = 1 + 8 + 1 + HEX_LEASE;

  /**
   * Participant is a candidate of priority 0.
   *
   * @param candidateId the candidate's id
   * @param leaseId its standby lease
   * @param createRevision when it joined the queue on this lease
   * @param modRevision its place in the queue
   */
  public Participant(String candidateId, long leaseId, long createRevision, long modRevision) {
    this(candidateId, leaseId, createRevision, modRevision, 0);
  }

  /**
   * Participant rejects a null id and non-positive lease or revisions.
   *
   * @param candidateId the id, not null
   * @param leaseId the lease id, positive
   * @param createRevision the revision the key was created at, positive
   * @param modRevision the revision the key was last put at, at least {@code createRevision}
   * @param priority the candidate's priority, from its key's name (0 unless it set one)
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
   * transferRequestKey is where an operator asks the leader of {@code electionKey} to transfer
   * its term ({@code leasehold transfer}, PROTOCOL.md §4.5): under the queue's prefix, so that the
   * MASTER's watch of the queue sees it, and named so that it sorts after every participant key
   * ({@code ~} and then a letter past the hex digits) and spells none, so that no count of those
   * ahead and no listing of the queue includes it. Its value is the target's candidate id.
   *
   * @param electionKey the election's key, as configured
   * @return {@code electionKey + "/candidates/~transfer"}
   */
  public static String transferRequestKey(String electionKey) {
    return prefix(electionKey) + "~transfer";
  }

  /**
   * keyOf is the participant key of the candidate of priority 0 on {@code leaseId}.
   *
   * @param electionKey the election's key, as configured
   * @param leaseId the candidate's standby lease
   * @return the key, its lease id in 16 lower-case hex digits
   */
  public static String keyOf(String electionKey, long leaseId) {
    return keyOf(electionKey, leaseId, 0);
  }

  /**
   * keyOf is the participant key of the candidate of {@code priority} on {@code leaseId}: for
   * priority 0, {@code <prefix><lease id in 16 hex digits>} (the name every candidate wrote
   * before priorities, so a fleet that sets none writes the same keys); above 0, {@code
   * <prefix>+<8 hex digits of Integer.MAX_VALUE - priority>.<lease>}; below 0, {@code
   * <prefix>~<8 hex digits of -1 - priority>.<lease>}. '+' sorts before every hex digit and
   * '~' after, so the names sort by priority, highest first, then by lease id: a count of the
   * names before one's own is the number of candidates ahead (PROTOCOL.md §4.5).
   *
   * @param electionKey the election's key, as configured
   * @param leaseId the candidate's standby lease
   * @param priority the candidate's priority
   * @return the participant key
   */
  public static String keyOf(String electionKey, long leaseId, int priority) {
    String lease = String.format("%016x", leaseId);
    if (priority == 0) {
      return prefix(electionKey) + lease;
    }
    int rank = priority > 0 ? Integer.MAX_VALUE - priority : -1 - priority;
    return prefix(electionKey) + (priority > 0 ? '+' : '~') + String.format("%08x", rank) + '.' + lease;
  }

  /**
   * rankEnd is where the names of the candidates of {@code priority} end: every participant key
   * of that priority or a higher one sorts before it, every one of a lower priority after.
   *
   * @param electionKey the election's key, as configured
   * @param priority the priority whose names end there
   * @return the first name after every participant key of that priority or a higher one
   */
  public static String rankEnd(String electionKey, int priority) {
    // The highest name of the priority, and then anything longer: the NUL makes it one longer.
    return keyOf(electionKey, -1L, priority) + '\0';
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
    String name = nameOf(electionKey, key);
    if (name == null) {
      return 0;
    }
    try {
      return Long.parseUnsignedLong(name.substring(name.length() - HEX_LEASE), 16);
    } catch (NumberFormatException notHex) {
      return 0;
    }
  }

  /**
   * priorityOf reads the priority a participant key of {@code electionKey} spells; 0 when
   * {@code key} is not one ({@link #leaseOf} says which).
   *
   * @param electionKey the election's key, as configured
   * @param key a key read from the store under {@link #prefix(String)}
   * @return the priority it spells, or 0
   */
  public static int priorityOf(String electionKey, String key) {
    String name = nameOf(electionKey, key);
    if (name == null || name.length() == HEX_LEASE) {
      return 0;
    }
    try {
      int rank = Integer.parseUnsignedInt(name.substring(1, 9), 16);
      return name.charAt(0) == '+' ? Integer.MAX_VALUE - rank : -1 - rank;
    } catch (NumberFormatException notHex) {
      return 0;
    }
  }

  // The name after the prefix if it has one of keyOf's two shapes, else null.
  private static String nameOf(String electionKey, String key) {
    String prefix = prefix(electionKey);
    if (!key.startsWith(prefix)) {
      return null;
    }
    String name = key.substring(prefix.length());
    if (name.length() == HEX_LEASE) {
      return name;
    }
    boolean ranked = name.length() == RANKED_LENGTH && (name.charAt(0) == '+' || name.charAt(0) == '~')
        && name.charAt(9) == '.';
    return ranked ? name : null;
  }
}
