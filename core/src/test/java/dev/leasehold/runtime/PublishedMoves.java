package dev.leasehold.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.LeadershipEvent.Cause;
import java.util.EnumSet;
import java.util.Set;

/**
 * PublishedMoves follows one machine's events as its listeners see them and checks each against
 * the machine's own {@link Transitions}: an event starts where the last one ended, or where the
 * table's silent moves lead from there; a same-role event keeps the role; every other event is a
 * move the table allows and does not keep silent; ELECTED, and only ELECTED, carries a term, and
 * enters MASTER. A machine that publishes a move its table forbids, or from a role its listeners
 * were never told, fails here whatever path it took.
 */
public final class PublishedMoves {
  private static final Set<Cause> SAME_ROLE =
      EnumSet.of(Cause.LEADER_CHANGED, Cause.STORE_UNAVAILABLE, Cause.STORE_RECOVERED);

  private final Transitions table;
  private ElectorState told;
  private int checked;

  /** PublishedMoves starts where {@code table}'s machines start. */
  public PublishedMoves(Transitions table) {
    this.table = table;
    this.told = table.initial();
  }

  /** told is the role the listeners were told last. */
  public ElectorState told() {
    return told;
  }

  /** checked is how many events were checked, to show a run was not vacuous. */
  public int checked() {
    return checked;
  }

  /** check checks the event {@code p}; {@code where} names the run and step for a failure. */
  public void check(Command.Publish p, String where) {
    String at = where + ": " + p + " (told " + told + ")";
    assertTrue(p.from() == told || silentlyReachable(told, p.from()), () -> "does not start where the listeners stand: " + at);
    boolean loss = p.from() == ElectorState.MASTER && p.to() != ElectorState.MASTER;
    if (SAME_ROLE.contains(p.cause()) && !(p.cause() == Cause.STORE_UNAVAILABLE && loss)) {
      assertEquals(p.from(), p.to(), () -> "a same-role event moved: " + at);
    } else {
      assertTrue(table.isLegal(p.from(), p.to()), () -> "not in the machine's table: " + at);
      assertTrue(!table.isSilent(p.from(), p.to()), () -> "a silent move was published: " + at);
    }
    if (p.cause() == Cause.ELECTED) {
      assertEquals(ElectorState.MASTER, p.to(), at);
      assertNotNull(p.term(), at);
      assertEquals(p.term().token(), p.leader().fencingToken(), () -> "the term and the leader disagree: " + at);
    } else {
      assertNull(p.term(), at);
    }
    told = p.to();
    checked++;
  }

  private boolean silentlyReachable(ElectorState from, ElectorState to) {
    Set<ElectorState> seen = EnumSet.of(from);
    boolean grew = true;
    while (grew) {
      grew = false;
      for (ElectorState a : EnumSet.copyOf(seen)) {
        for (ElectorState b : ElectorState.values()) {
          if (table.isSilent(a, b) && seen.add(b)) {
            grew = true;
          }
        }
      }
    }
    return seen.contains(to);
  }
}
