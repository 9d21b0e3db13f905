package dev.leasehold.etcd.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.runtime.Input;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A spreading session's view of its fleet (PROTOCOL.md §11.7) yielding when unhealthy: it hands
 * every election it leads to the healthy members, evenly, by moves; with none it keeps them and
 * says so. No store: the view is fed by hand and the elections' inboxes record what they are told.
 */
class SessionFleetTest {
  private static final String PREFIX = "/p/";
  private static final long ME = 1;

  private final Map<String, List<Input>> told = new TreeMap<>();
  private final Map<String, Consumer<Input>> inboxes = new LinkedHashMap<>();
  private final List<String> deleted = new ArrayList<>();
  private final SessionFleet fleet = new SessionFleet(PREFIX, inboxes, (key, token) -> deleted.add(key));
  private long revision = 100;

  SessionFleetTest() {
    for (int i = 0; i < 12; i++) {
      String key = PREFIX + "e" + (i < 10 ? "0" : "") + i;
      told.put(key, new ArrayList<>());
      inboxes.put(key, told.get(key)::add);
    }
  }

  private static String memberKey(long lease) {
    return SessionMember.key(PREFIX, lease);
  }

  private static KeyRecord member(long lease) {
    return new KeyRecord(SessionMember.value(1, "c" + lease), lease, lease * 10, lease * 10);
  }

  /** view reads a fleet where the members {@code members} hold, in key order, {@code held[i]} elections each. */
  private void view(long[] members, int[] held) {
    Map<String, KeyRecord> keys = new HashMap<>();
    for (long m : members) {
      keys.put(memberKey(m), member(m));
    }
    List<String> elections = new ArrayList<>(told.keySet());
    int next = 0;
    for (int i = 0; i < members.length; i++) {
      for (int j = 0; j < held[i]; j++, next++) {
        keys.put(elections.get(next), new KeyRecord("c" + members[i], members[i], 50 + next, 50 + next));
      }
    }
    fleet.rereadStarted();
    fleet.reread(keys, revision);
    fleet.renewed(ME);
    fleet.renewed(ME); // the members did not change in a round: settled
    told.values().forEach(List::clear);
  }

  private void memberGone(long lease) {
    fleet.changed(memberKey(lease), null, ++revision);
    fleet.settle();
  }

  private void memberCame(long lease) {
    fleet.changed(memberKey(lease), member(lease), ++revision);
    fleet.settle();
  }

  /** moves is how many MoveTo the elections were told, by target lease. */
  private Map<Long, Integer> moves() {
    Map<Long, Integer> to = new TreeMap<>();
    told.values().forEach(inputs -> inputs.stream()
        .filter(SessionInput.MoveTo.class::isInstance)
        .map(SessionInput.MoveTo.class::cast)
        .forEach(m -> to.merge(m.to().leaseId(), 1, Integer::sum)));
    return to;
  }

  @Test
  void anUnhealthyMemberHandsEveryElectionItLeadsToTheHealthyOnesEvenly() {
    view(new long[] {ME, 2, 3}, new int[] {4, 4, 4});
    assertTrue(moves().isEmpty(), "balanced: " + told);
    fleet.healthChanged(false);
    memberGone(ME);
    fleet.renewed(ME);
    assertEquals(Map.of(2L, 2, 3L, 2), moves(), "6 and 6: skew 0 among the healthy");
    assertEquals(0, fleet.kept());
  }

  @Test
  void theHandOverFillsTheHealthyMemberFurthestBelowItsShareFirst() {
    view(new long[] {ME, 2, 3}, new int[] {4, 6, 2});
    fleet.healthChanged(false);
    memberGone(ME);
    fleet.renewed(ME);
    assertEquals(Map.of(3L, 4), moves(), "6 and 6, not 8 and 4");
  }

  @Test
  void itsOwnMemberKeyStillInTheViewIsNoTarget() {
    view(new long[] {ME, 2}, new int[] {6, 6});
    fleet.healthChanged(false); // its member key's delete not yet seen
    fleet.renewed(ME);
    assertEquals(Map.of(2L, 6), moves());
  }

  @Test
  void withNoHealthyMemberItKeepsItsTermsAndCountsThemThenHandsThemOverWhenOneComes() {
    view(new long[] {ME}, new int[] {12});
    fleet.healthChanged(false);
    memberGone(ME);
    fleet.renewed(ME);
    assertTrue(moves().isEmpty(), "an unhealthy leader beats none: " + told);
    assertEquals(12, fleet.kept());
    memberCame(2);
    fleet.renewed(ME);
    assertEquals(Map.of(2L, 12), moves(), "at the first renewal that sees a healthy member");
    assertEquals(0, fleet.kept());
  }

  @Test
  void movesAskedForAreNotAskedAgainUntilTheyLandOrTwoRenewalsPass() {
    view(new long[] {ME, 2, 3}, new int[] {4, 4, 4});
    fleet.healthChanged(false);
    memberGone(ME);
    fleet.renewed(ME);
    told.values().forEach(List::clear);
    fleet.renewed(ME);
    assertTrue(moves().isEmpty(), "in flight: " + told);
    fleet.renewed(ME);
    fleet.renewed(ME);
    assertEquals(4, moves().values().stream().mapToInt(Integer::intValue).sum(), "refused or lost: asked again");
  }

  @Test
  void anUnhealthyMemberPrefersNoFreeKeyAndAHealthyOneAgainIsPreferredAsAfterAJoin() {
    view(new long[] {ME, 2, 3}, new int[] {4, 4, 4});
    fleet.healthChanged(false);
    told.forEach((key, inputs) -> assertTrue(
        inputs.stream().noneMatch(i -> i instanceof SessionInput.Preferred p && p.preferred()), key + ": " + inputs));
    fleet.healthChanged(true);
    memberGone(ME);
    memberCame(ME);
    fleet.renewed(ME);
    assertEquals(0, fleet.kept());
    assertTrue(moves().isEmpty(), "healthy and balanced: " + told);
  }

  @Test
  void aMemberBackWithNothingMovesNothingItselfAndItsShareIsTheOthersExcess() {
    // Back from unhealthy with nothing: the others, each above their target, move to it.
    view(new long[] {ME, 2, 3}, new int[] {0, 6, 6});
    assertTrue(moves().isEmpty(), "member " + ME + " moves only its own: " + told);
    assertEquals(Map.of(2L, 4, 3L, 4, ME, 4),
        Spread.targets(List.of(new SessionMember(ME, "c1", 1, 10), new SessionMember(2, "c2", 1, 20),
            new SessionMember(3, "c3", 1, 30)), Map.of(2L, 6, 3L, 6), 12));
  }
}
