package dev.leasehold.runtime;

import dev.leasehold.ElectorState;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Transitions is one machine's table of legal role changes: the role it starts in, the moves it
 * may make, and which of them are silent (they publish nothing, PROTOCOL.md §5). {@link Roles}
 * checks every move against it. PROTOCOL.md's transition tables are checked against these
 * values by a test in protocol-spec.
 *
 * <p>{@link #ELECTION}, the table of {@code ElectionMachine} (etcd, and the local store) and of
 * the SQL machine (PROTOCOL.md §3, §10):
 *
 * <pre>
 *             compare-and-swap won in time
 *  FOLLOWER ─────▶ CANDIDATE ─────────────────────────▶ MASTER
 *     ▲  ▲  key       │                                  │ deadline, key deleted or taken,
 *     │  │  free      │ lost, failed, too late           │ lease gone, resign()
 *     │  └────────────┘ (silent both ways)               │
 *     └──────────────────────────────────────────────────┘
 *  FOLLOWER, CANDIDATE, MASTER ── close() ──▶ STOPPED (terminal)
 * </pre>
 *
 * <p>{@link #SESSION_ELECTION}, the table of {@code SessionElection} (PROTOCOL.md §11.2): a
 * campaign in flight is not a role of its own, so FOLLOWER ↔ MASTER directly, and every move
 * publishes.
 *
 * <p>Immutable and thread-safe.
 */
public final class Transitions {
  /** ELECTION is the table of the etcd machine and of the SQL machine (PROTOCOL.md §3, §10). */
  public static final Transitions ELECTION =
      new Transitions(ElectorState.FOLLOWER)
          .silent(ElectorState.FOLLOWER, ElectorState.CANDIDATE)
          .legal(ElectorState.FOLLOWER, ElectorState.STOPPED)
          .legal(ElectorState.CANDIDATE, ElectorState.MASTER)
          .silent(ElectorState.CANDIDATE, ElectorState.FOLLOWER)
          .legal(ElectorState.CANDIDATE, ElectorState.STOPPED)
          .legal(ElectorState.MASTER, ElectorState.FOLLOWER)
          .legal(ElectorState.MASTER, ElectorState.STOPPED);

  /** SESSION_ELECTION is the table of an election on a session (PROTOCOL.md §11.2). */
  public static final Transitions SESSION_ELECTION =
      new Transitions(ElectorState.FOLLOWER)
          .legal(ElectorState.FOLLOWER, ElectorState.MASTER)
          .legal(ElectorState.FOLLOWER, ElectorState.STOPPED)
          .legal(ElectorState.MASTER, ElectorState.FOLLOWER)
          .legal(ElectorState.MASTER, ElectorState.STOPPED);

  private final ElectorState initial;
  private final Map<ElectorState, Set<ElectorState>> legal = new EnumMap<>(ElectorState.class);
  private final Map<ElectorState, Set<ElectorState>> silent = new EnumMap<>(ElectorState.class);

  private Transitions(ElectorState initial) {
    this.initial = Objects.requireNonNull(initial, "initial");
    for (ElectorState s : ElectorState.values()) {
      legal.put(s, EnumSet.noneOf(ElectorState.class));
      silent.put(s, EnumSet.noneOf(ElectorState.class));
    }
  }

  // Only the constants above call these, while they are built; the table never changes after.
  private Transitions legal(ElectorState from, ElectorState to) {
    legal.get(from).add(to);
    return this;
  }

  private Transitions silent(ElectorState from, ElectorState to) {
    silent.get(from).add(to);
    return legal(from, to);
  }

  /**
   * initial is the role a machine starts in.
   *
   * @return the initial role
   */
  public ElectorState initial() {
    return initial;
  }

  /**
   * isLegal tells whether the machine may move from one role to another.
   *
   * @param from the role to move from
   * @param to the role to move to
   * @return true when the table allows the move
   */
  public boolean isLegal(ElectorState from, ElectorState to) {
    return legal.get(from).contains(to);
  }

  /**
   * isSilent tells whether the move from one role to another is legal and publishes nothing.
   *
   * @param from the role to move from
   * @param to the role to move to
   * @return true for a legal move that publishes no event
   */
  public boolean isSilent(ElectorState from, ElectorState to) {
    return silent.get(from).contains(to);
  }

  /**
   * successors is the set of roles reachable in one step from {@code from}.
   *
   * @param from the role to move from
   * @return the roles, possibly empty
   */
  public Set<ElectorState> successors(ElectorState from) {
    // copyOf(EnumSet) accepts an empty set, unlike copyOf(Collection)
    return EnumSet.copyOf(legal.get(from));
  }

  /**
   * check throws IllegalStateException, naming the legal moves, unless {@code from -> to} is legal.
   *
   * @param from the role to move from
   * @param to the role to move to
   * @throws IllegalStateException when the table forbids the move
   */
  public void check(ElectorState from, ElectorState to) {
    if (!isLegal(from, to)) {
      throw new IllegalStateException(
          "illegal transition " + from + " -> " + to + "; legal from " + from + ": " + legal.get(from));
    }
  }

  @Override
  public String toString() {
    return "Transitions{initial=" + initial + ", legal=" + legal + ", silent=" + silent + "}";
  }
}
