package dev.leasehold.protocol;

import dev.leasehold.ElectorState;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * Transitions is the table of legal role changes; PROTOCOL.md's transition table is checked
 * against it by a test in protocol-spec.
 *
 * <pre>
 * from       to         when
 * FOLLOWER   CANDIDATE  the key is absent (read or watch) and no resign hold-off applies
 * FOLLOWER   STOPPED    close()
 * CANDIDATE  MASTER     the compare-and-swap committed before the local deadline
 * CANDIDATE  FOLLOWER   the CAS lost, failed, or committed too late; or the grant failed
 * CANDIDATE  STOPPED    close()
 * MASTER     FOLLOWER   deadline passed, key deleted or taken, lease gone, resign()
 * MASTER     STOPPED    close()
 * </pre>
 *
 * <p>Stateless and thread-safe.
 */
public final class Transitions {
  private static final Map<ElectorState, Set<ElectorState>> LEGAL = new EnumMap<>(ElectorState.class);

  static {
    LEGAL.put(ElectorState.FOLLOWER, EnumSet.of(ElectorState.CANDIDATE, ElectorState.STOPPED));
    LEGAL.put(
        ElectorState.CANDIDATE,
        EnumSet.of(ElectorState.MASTER, ElectorState.FOLLOWER, ElectorState.STOPPED));
    LEGAL.put(ElectorState.MASTER, EnumSet.of(ElectorState.FOLLOWER, ElectorState.STOPPED));
    LEGAL.put(ElectorState.STOPPED, EnumSet.noneOf(ElectorState.class));
  }

  private Transitions() {}

  /** isLegal tells whether the machine may move from one role to another. */
  public static boolean isLegal(ElectorState from, ElectorState to) {
    return LEGAL.get(from).contains(to);
  }

  /** successors is the set of roles reachable in one step from {@code from}. */
  public static Set<ElectorState> successors(ElectorState from) {
    // copyOf(EnumSet) accepts an empty set, unlike copyOf(Collection)
    return EnumSet.copyOf(LEGAL.get(from));
  }

  static void check(ElectorState from, ElectorState to) {
    if (!isLegal(from, to)) {
      throw new IllegalStateException(
          "illegal transition " + from + " -> " + to + "; legal from " + from + ": " + LEGAL.get(from));
    }
  }
}
