package dev.leasehold.etcd.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The spreading rule (PROTOCOL.md §11.7): shares, targets and the fewest moves. */
class SpreadTest {
  private static SessionMember member(long lease, int weight) {
    return new SessionMember(lease, "c" + lease, weight, lease);
  }

  private static List<SessionMember> equal(int count) {
    List<SessionMember> out = new ArrayList<>();
    for (int i = 1; i <= count; i++) {
      out.add(member(i, 1));
    }
    return out;
  }

  private static Map<Long, Integer> after(List<SessionMember> members, Map<Long, Integer> held, int n) {
    Map<Long, Integer> h = new HashMap<>(held);
    for (Spread.Move m : Spread.moves(members, held, n)) {
      h.merge(m.from().leaseId(), -m.count(), Integer::sum);
      h.merge(m.to().leaseId(), m.count(), Integer::sum);
    }
    return h;
  }

  private static int moved(List<SessionMember> members, Map<Long, Integer> held, int n) {
    return Spread.moves(members, held, n).stream().mapToInt(Spread.Move::count).sum();
  }

  @Test
  void aColdFleetWithEverythingOnOneMemberSpreadsTo341Or342Each() {
    Map<Long, Integer> end = after(equal(3), Map.of(1L, 1024), 1024);
    assertEquals(Map.of(1L, 342, 2L, 341, 3L, 341), end);
    assertEquals(682, moved(equal(3), Map.of(1L, 1024), 1024), "the fewest: everything above 342");
  }

  @Test
  void aBalancedFleetMovesNothing() {
    assertTrue(Spread.moves(equal(3), Map.of(1L, 341, 2L, 342, 3L, 341), 1024).isEmpty());
    assertTrue(Spread.moves(equal(3), Map.of(1L, 100, 2L, 100, 3L, 100), 300).isEmpty());
  }

  @Test
  void aJoinMovesExactlyTheNewcomersShare() {
    assertEquals(75, moved(equal(4), Map.of(1L, 100, 2L, 100, 3L, 100), 300));
    assertEquals(Map.of(1L, 75, 2L, 75, 3L, 75, 4L, 75), after(equal(4), Map.of(1L, 100, 2L, 100, 3L, 100), 300));
    // After a leave taken up by expiry, unevenly: only the excess moves.
    assertEquals(30, moved(equal(2), Map.of(1L, 180, 2L, 120), 300));
  }

  @Test
  void weightsSplitByNTimesWeightOverTotal() {
    List<SessionMember> ms = List.of(member(1, 1), member(2, 3));
    assertEquals(Map.of(1L, 250, 2L, 750), after(ms, Map.of(1L, 1000), 1000));
  }

  @Test
  void randomFleetsEndWithinFloorAndCeilingWithTheFewestMoves() {
    SplittableRandom r = new SplittableRandom(28);
    for (int run = 0; run < 2000; run++) {
      int count = 1 + r.nextInt(7);
      List<SessionMember> ms = new ArrayList<>();
      long total = 0;
      for (int i = 1; i <= count; i++) {
        ms.add(member(i * 7L, 1 + r.nextInt(4)));
        total += ms.get(i - 1).weight();
      }
      int n = r.nextInt(1100);
      Map<Long, Integer> held = new HashMap<>();
      int left = n;
      for (SessionMember m : ms) {
        int h = r.nextInt(left + 1);
        held.put(m.leaseId(), h);
        left -= h;
      }
      held.merge(ms.get(0).leaseId(), left, Integer::sum);
      Map<Long, Integer> end = after(ms, held, n);
      int excess = 0;
      for (SessionMember m : ms) {
        long quota = (long) n * m.weight();
        int h = end.get(m.leaseId());
        assertTrue(h >= quota / total && h <= (quota + total - 1) / total, "run " + run + ": " + end);
        excess += Math.max(0, held.get(m.leaseId()) - (int) ((quota + total - 1) / total));
      }
      int moved = moved(ms, held, n);
      assertTrue(moved >= excess, "no fewer than the excess above the ceilings");
      assertTrue(Spread.moves(ms, end, n).isEmpty(), "the end is stable");
    }
  }

  @Test
  void freeElectionsArePreferredToEachMemberByItsWeightAndTheSameByEveryone() {
    List<SessionMember> ms = List.of(member(11, 1), member(22, 1), member(33, 2));
    Map<Long, Integer> got = new HashMap<>();
    for (int i = 0; i < 4000; i++) {
      SessionMember p = Spread.preferred(ms, "/shards/shard-" + i);
      assertEquals(p, Spread.preferred(List.of(ms.get(2), ms.get(0), ms.get(1)), "/shards/shard-" + i), "order-free");
      got.merge(p.leaseId(), 1, Integer::sum);
    }
    assertTrue(Math.abs(got.get(11L) - 1000) < 100 && Math.abs(got.get(22L) - 1000) < 100
        && Math.abs(got.get(33L) - 2000) < 100, got.toString());
    // A leave changes the preference only of the elections the leaver was preferred for.
    int changed = 0;
    for (int i = 0; i < 4000; i++) {
      String k = "/shards/shard-" + i;
      if (Spread.preferred(ms, k).leaseId() != 33 && !Spread.preferred(ms, k).equals(Spread.preferred(ms.subList(0, 2), k))) {
        changed++;
      }
    }
    assertEquals(0, changed);
  }

  @Test
  void withNoMembersNobodyIsPreferred() {
    assertEquals(null, Spread.preferred(List.of(), "k"));
  }

  // ---- handOver: an unhealthy member leaving (yield when unhealthy) ----

  private static Map<Long, Integer> handedOver(List<SessionMember> members, Map<Long, Integer> held, int n, int count) {
    Map<Long, Integer> h = new HashMap<>(held);
    for (SessionMember m : Spread.handOver(members, held, n, count)) {
      h.merge(m.leaseId(), 1, Integer::sum);
    }
    return h;
  }

  @Test
  void aLeavingMembersElectionsGoEvenlyToTheHealthyMembers() {
    assertEquals(Map.of(1L, 6, 2L, 6), handedOver(equal(2), Map.of(1L, 4, 2L, 4), 12, 4));
    assertEquals(Map.of(1L, 342, 2L, 341, 3L, 341), handedOver(equal(3), Map.of(), 1024, 1024));
  }

  @Test
  void theMemberFurthestBelowItsTargetTakesFirst() {
    assertEquals(Map.of(1L, 6, 2L, 6), handedOver(equal(2), Map.of(1L, 6, 2L, 2), 12, 4));
  }

  @Test
  void weightsShareAHandOverAsTheyShareTheFleet() {
    List<SessionMember> ms = List.of(member(1, 1), member(2, 3));
    assertEquals(Map.of(1L, 25, 2L, 75), handedOver(ms, Map.of(), 100, 100));
  }

  @Test
  void withNoHealthyMemberNothingIsHandedOver() {
    assertTrue(Spread.handOver(List.of(), Map.of(), 12, 12).isEmpty());
  }

  @Test
  void randomHandOversLeaveTheHealthyMembersWithinFloorAndCeiling() {
    SplittableRandom r = new SplittableRandom(2811);
    for (int run = 0; run < 2000; run++) {
      List<SessionMember> ms = equal(1 + r.nextInt(6));
      int n = r.nextInt(500);
      int mine = n == 0 ? 0 : r.nextInt(n + 1);
      // The healthy members hold the rest, within their shares of it.
      Map<Long, Integer> held = new HashMap<>();
      for (int i = 0; i < n - mine; i++) {
        held.merge(ms.get(i % ms.size()).leaseId(), 1, Integer::sum);
      }
      Map<Long, Integer> end = handedOver(ms, held, n, mine);
      int floor = n / ms.size();
      int ceil = (n + ms.size() - 1) / ms.size();
      for (SessionMember m : ms) {
        int h = end.getOrDefault(m.leaseId(), 0);
        assertTrue(h >= floor && h <= ceil, "run " + run + ": " + end + " of " + n);
      }
    }
  }
}
