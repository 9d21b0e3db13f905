package dev.leasehold.it.chaos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * MemberStorm is the spreading run's fault (issue 28, "member join and leave storms under
 * load"): within one second, one or two members leave, each by SIGKILL (a crash: its lease and
 * member key live on until they expire) or by a graceful close (its session resigns its terms
 * and revokes its lease), drawn from the seed; and one to {@link #MAX_JOINS} join, each a new slot or a
 * returning one (a slot that left before, or in this very storm after its leave: the same
 * candidate id on a new lease, maybe while its old lease still lives). The fleet keeps between
 * {@link SpreadChaosConfig#minMembers} and {@link SpreadChaosConfig#maxMembers} members.
 *
 * <p>Immutable once drawn; thread-safe.
 *
 * @param actions what happens, in the order of their offsets
 */
record MemberStorm(List<Action> actions) {
  /** MAX_JOINS is the most joins one storm draws. */
  static final int MAX_JOINS = 3;

  /** Kind is what an action does to a member. */
  enum Kind {
    /** KILL: SIGKILL the member's JVM. */
    KILL,
    /** CLOSE: the member closes its session, as on a normal shutdown. */
    CLOSE,
    /** JOIN: a member JVM starts in the slot. */
    JOIN
  }

  /**
   * Action is one leave or join.
   *
   * @param offsetMillis when, after the storm's start (0 to 1,000 ms)
   * @param kind what
   * @param slot which member slot
   * @param returning for a join, whether the slot ran before
   */
  record Action(long offsetMillis, Kind kind, String slot, boolean returning) {
    /** label is the action in a report: {@code -m1(kill)}, {@code +m4}, {@code +m1(back)}. */
    String label() {
      return switch (kind) {
        case KILL -> "-" + slot + "(kill)";
        case CLOSE -> "-" + slot + "(close)";
        case JOIN -> "+" + slot + (returning ? "(back)" : "");
      };
    }
  }

  /** MemberStorm copies its actions, ordered by offset. */
  MemberStorm {
    actions = actions.stream().sorted(Comparator.comparingLong(Action::offsetMillis)).toList();
  }

  /**
   * draw draws a storm for the fleet now live.
   *
   * @param live the live slots, in name order
   * @param gone slots that ran before and are not live
   * @param fresh makes a never-used slot name
   * @param config the fleet's bounds
   * @param random the run's seeded draws
   * @return the storm
   */
  static MemberStorm draw(List<String> live, Set<String> gone, java.util.function.Supplier<String> fresh,
      SpreadChaosConfig config, Random random) {
    int maxLeaves = Math.min(2, live.size() - 1);
    int leaves = 1 + random.nextInt(maxLeaves);
    int left = live.size() - leaves;
    int minJoins = Math.max(1, config.minMembers() - left);
    int maxJoins = Math.max(minJoins, Math.min(MAX_JOINS, config.maxMembers() - left));
    int joins = minJoins + random.nextInt(maxJoins - minJoins + 1);
    List<String> pool = new ArrayList<>(live);
    List<Action> actions = new ArrayList<>();
    List<Action> leaving = new ArrayList<>();
    for (int i = 0; i < leaves; i++) {
      String slot = pool.remove(random.nextInt(pool.size()));
      Action a = new Action(random.nextInt(1000), random.nextBoolean() ? Kind.KILL : Kind.CLOSE, slot, false);
      actions.add(a);
      leaving.add(a);
    }
    List<String> earlier = new ArrayList<>(new TreeSet<>(gone));
    for (int i = 0; i < joins; i++) {
      int choice = random.nextInt(3);
      if (choice == 0 && !earlier.isEmpty()) {
        actions.add(new Action(random.nextInt(1000), Kind.JOIN, earlier.remove(random.nextInt(earlier.size())), true));
      } else if (choice == 1 && !leaving.isEmpty()) {
        // Back right after its own leave: the same candidate id again, on a new lease.
        Action l = leaving.remove(random.nextInt(leaving.size()));
        long after = l.offsetMillis() + random.nextInt((int) (1000 - l.offsetMillis()));
        actions.add(new Action(after, Kind.JOIN, l.slot(), true));
      } else {
        actions.add(new Action(random.nextInt(1000), Kind.JOIN, fresh.get(), false));
      }
    }
    return new MemberStorm(actions);
  }

  /** label is the storm in a report, its actions in order. */
  String label() {
    return actions.stream().map(Action::label).collect(Collectors.joining(" "));
  }
}
