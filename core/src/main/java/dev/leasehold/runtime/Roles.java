package dev.leasehold.runtime;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderInfo;
import dev.leasehold.LeadershipEvent.Cause;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * Roles is a machine's transition choke point: the one place its role changes, the one place a
 * {@link Command.Publish} is made, and the one place its outages are reported. Every machine
 * that publishes keeps one (the etcd machine, a session's election, the SQL machine), with its
 * own {@link Transitions} table and its own hook for leaving a role.
 *
 * <p>What it keeps:
 *
 * <ul>
 *   <li>the role;
 *   <li>{@code told}, the role the listeners' view stands at: the {@code to} of the last event,
 *       or where a silent move led (FOLLOWER ↔ CANDIDATE, PROTOCOL.md §5), so the next event
 *       starts from there;
 *   <li>whether a loss is owed: the role left MASTER at once and the listeners, told nothing
 *       yet, still see a MASTER while the machine learns what to name the loss (the etcd
 *       machine's PROBING, the SQL machine's read after a renewal that changed no row);
 *   <li>the leader last seen (this instance while MASTER), which every event carries;
 *   <li>the store's {@link Reachability}.
 * </ul>
 *
 * <p>Events pair up by construction: {@code told} becomes MASTER only by publishing ELECTED,
 * which carries the new term's {@link Term}, and leaves MASTER only by publishing the end of
 * that term. A move is checked against the table twice, for the role and for the listeners'
 * view. Leaving a role runs the machine's hook after the role changed and before the event is
 * published, so a role's timers never outlive it and {@code isLeader()} is false before any
 * listener hears of a loss.
 *
 * <p>Pure and not thread-safe: owned by one machine, stepped on one event loop.
 */
public final class Roles {
  /** Leaving is a machine's hook for a role left: it cancels that role's timers and forgets its calls. */
  @FunctionalInterface
  public interface Leaving {
    /**
     * left runs after the role changed from {@code from} to {@code to}, before any event of the
     * move.
     *
     * @param from the role left
     * @param to the role entered
     */
    void left(ElectorState from, ElectorState to);
  }

  private static final Set<Cause> SAME_ROLE =
      EnumSet.of(Cause.LEADER_CHANGED, Cause.STORE_UNAVAILABLE, Cause.STORE_RECOVERED);

  private final Transitions table;
  private final StepEffects<?> fx;
  private final Reachability reach;
  private final Leaving leaving;
  private ElectorState role;
  private ElectorState told;
  private boolean lossOwed;
  private LeaderInfo leader;

  /**
   * Roles starts in {@code table}'s initial role with no leader known; it publishes into
   * {@code fx}'s step, reports what {@code reach} decides, and runs {@code leaving} on every
   * role left.
   *
   * @param table the machine's legal moves
   * @param fx the effects of the step being run
   * @param reach the machine's count of failed calls
   * @param leaving the hook run on every role left
   */
  public Roles(Transitions table, StepEffects<?> fx, Reachability reach, Leaving leaving) {
    this.table = Objects.requireNonNull(table, "table");
    this.fx = Objects.requireNonNull(fx, "fx");
    this.reach = Objects.requireNonNull(reach, "reach");
    this.leaving = Objects.requireNonNull(leaving, "leaving");
    this.role = table.initial();
    this.told = role;
  }

  /**
   * role is the current role.
   *
   * @return the role the machine is in
   */
  public ElectorState role() {
    return role;
  }

  /**
   * leader is the leader last seen (this instance while MASTER), or null.
   *
   * @return the leader, or null when none is known
   */
  public LeaderInfo leader() {
    return leader;
  }

  /**
   * owesLoss is true from {@link #stepDownUntold} until the loss is published.
   *
   * @return true while the listeners still see a MASTER that has stepped down
   */
  public boolean owesLoss() {
    return lossOwed;
  }

  /**
   * pick is the current role's handler among a machine's, and {@code owing}'s while a loss is
   * owed (the role is FOLLOWER, the listeners still see a MASTER); STOPPED has none.
   *
   * @param <H> the machine's handler type
   * @param follower the FOLLOWER's handler
   * @param candidate the CANDIDATE's handler
   * @param master the MASTER's handler
   * @param owing the handler while a loss is owed
   * @return the handler for the current role
   * @throws IllegalStateException when STOPPED: a machine handles its inputs itself then
   */
  public <H> H pick(H follower, H candidate, H master, H owing) {
    return switch (role) {
      case FOLLOWER -> lossOwed ? owing : follower;
      case CANDIDATE -> candidate;
      case MASTER -> master;
      case STOPPED -> throw new IllegalStateException("STOPPED has no role's handler: the machine handles its inputs itself");
    };
  }

  /**
   * moveTo moves the role to {@code to}, and publishes {@code cause} with {@code who} as the
   * leader, which the machine then reports as its leader.
   *
   * <ul>
   *   <li>{@code cause} null: a silent move of the table (FOLLOWER ↔ CANDIDATE); the listeners'
   *       view follows it.
   *   <li>LEADER_CHANGED, STORE_UNAVAILABLE, STORE_RECOVERED keep the role: {@code to} must be
   *       {@code told}; held back (false) while a loss is owed, when they would come before it.
   *       STORE_UNAVAILABLE may also end a term (the SQL term is bound to its session): from
   *       {@code told} MASTER to another role it is a loss.
   *   <li>ELECTED is {@link #elect}'s.
   *   <li>Any other cause moves the listeners from {@code told} to {@code to}; one that leaves
   *       MASTER is the owed loss, if one is owed.
   * </ul>
   *
   * @param to the role to move to
   * @param cause the cause to publish, or null for a silent move
   * @param who the leader to publish and report, or null
   * @param now the monotonic time of the step, in nanoseconds
   * @return whether an event was published
   * @throws IllegalStateException for a move the table forbids, or one that would break pairing
   */
  public boolean moveTo(ElectorState to, Cause cause, LeaderInfo who, long now) {
    if (cause == Cause.ELECTED) {
      throw new IllegalArgumentException("ELECTED carries its term: use elect");
    }
    return move(to, cause, who, null, now);
  }

  /**
   * elect moves the CANDIDATE (or, in a table without one, the FOLLOWER) to MASTER and publishes
   * ELECTED with {@code term}.
   *
   * @param term the new term, handed to the runtime in the ELECTED event
   * @param self this instance as the leader, with the term's fencing token
   * @param now the monotonic time of the step, in nanoseconds
   */
  public void elect(Term term, LeaderInfo self, long now) {
    move(ElectorState.MASTER, Cause.ELECTED, self, Objects.requireNonNull(term, "term"), now);
  }

  /**
   * tell publishes a same-role event with the leader last seen (see moveTo); false when it was held
   * back.
   *
   * @param cause the cause to publish
   * @param now the monotonic time of the step, in nanoseconds
   * @return whether an event was published
   */
  public boolean tell(Cause cause, long now) {
    return moveTo(told, cause, leader, now);
  }

  /**
   * see records the leader a follower saw ({@code seen}, null for none) and tells a new one as
   * LEADER_CHANGED; no leader is news to no one.
   *
   * @param seen the leader seen, or null for none
   * @param now the monotonic time of the step, in nanoseconds
   */
  public void see(LeaderInfo seen, long now) {
    if (!Objects.equals(seen, leader)) {
      leader = seen;
      if (seen != null) {
        tell(Cause.LEADER_CHANGED, now);
      }
    }
  }

  /**
   * stepDownUntold moves a MASTER whose listeners were told MASTER to FOLLOWER at once, with no
   * leader known and a loss owed: the machine publishes it once it knows its cause, with
   * {@link #moveTo}. Same-role events are held back until then.
   */
  public void stepDownUntold() {
    if (role != ElectorState.MASTER || told != ElectorState.MASTER) {
      throw new IllegalStateException("only a MASTER the listeners see steps down untold, not " + role
          + " (told " + told + ")");
    }
    lossOwed = true;
    leader = null;
    change(ElectorState.FOLLOWER);
  }

  /**
   * failed counts a failed call (its reason is the step's, see {@link Reachability#begin}) and
   * publishes STORE_UNAVAILABLE once the outage is due for a report.
   *
   * @param now the monotonic time of the step, in nanoseconds
   */
  public void failed(long now) {
    if (reach.failed()) {
      tell(Cause.STORE_UNAVAILABLE, now);
    }
  }

  /**
   * progressed records that the store gave the machine what it needs, and publishes
   * STORE_RECOVERED after a reported outage (held back while a loss is owed: the next progress
   * after the loss reports it).
   *
   * @param now the monotonic time of the step, in nanoseconds
   */
  public void progressed(long now) {
    if (reach.progressed()) {
      tell(Cause.STORE_RECOVERED, now);
    }
  }

  private boolean move(ElectorState to, Cause cause, LeaderInfo who, Term term, long now) {
    boolean sameRole = cause != null && SAME_ROLE.contains(cause)
        && !(cause == Cause.STORE_UNAVAILABLE && told == ElectorState.MASTER && to != ElectorState.MASTER);
    if (sameRole) {
      if (to != told) {
        throw new IllegalStateException(cause + " keeps the role " + told + ", but was asked to move to " + to);
      }
      if (lossOwed) {
        return false;
      }
      publish(to, cause, who, term, now);
      return true;
    }
    if (cause == null) {
      if (told != role || !table.isSilent(role, to)) {
        throw new IllegalStateException(role + " -> " + to + " must be published (told " + told + ")");
      }
      change(to);
      told = to;
      return false;
    }
    table.check(told, to);
    if (table.isSilent(told, to)) {
      throw new IllegalStateException(told + " -> " + to + " is silent, but was published as " + cause);
    }
    if (to != role) {
      change(to);
    }
    if (told == ElectorState.MASTER) {
      lossOwed = false;
    }
    publish(to, cause, who, term, now);
    return true;
  }

  private void change(ElectorState to) {
    ElectorState was = role;
    table.check(was, to);
    role = to;
    leaving.left(was, to);
  }

  private void publish(ElectorState to, Cause cause, LeaderInfo who, Term term, long now) {
    fx.add(new Command.Publish(told, to, cause, who, now, term));
    told = to;
    leader = who;
    reach.told(cause);
  }
}
