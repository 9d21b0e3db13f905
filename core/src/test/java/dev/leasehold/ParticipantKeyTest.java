package dev.leasehold;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A participant key's name spells its priority and lease, and names sort by priority first. */
class ParticipantKeyTest {
  private static final String K = "/jobs/nightly";

  @Test
  void priorityZeroKeepsTheNameEveryCandidateWroteBefore() {
    assertEquals(K + "/candidates/00000000000000ff", Participant.keyOf(K, 255));
    assertEquals(Participant.keyOf(K, 255), Participant.keyOf(K, 255, 0));
  }

  @Test
  void aNameReadsBackAsItsLeaseAndPriority() {
    for (int p : new int[] {Integer.MIN_VALUE, -7, -1, 0, 1, 42, Integer.MAX_VALUE}) {
      String key = Participant.keyOf(K, 0x1234abcdL, p);
      assertEquals(0x1234abcdL, Participant.leaseOf(K, key), key);
      assertEquals(p, Participant.priorityOf(K, key), key);
    }
    assertEquals(0, Participant.leaseOf(K, K + "/candidates/+zz"), "not a participant key");
    assertEquals(0, Participant.leaseOf(K, K + "/transfer"), "not a participant key");
  }

  @Test
  void namesSortByPriorityHighestFirstThenByLease() {
    List<String> expected = List.of(
        Participant.keyOf(K, 9, Integer.MAX_VALUE),
        Participant.keyOf(K, 1, 5),
        Participant.keyOf(K, 2, 5),
        Participant.keyOf(K, 1, 1),
        Participant.keyOf(K, 1, 0),
        Participant.keyOf(K, -1L, 0),
        Participant.keyOf(K, 1, -1),
        Participant.keyOf(K, 1, Integer.MIN_VALUE));
    List<String> sorted = new ArrayList<>(expected);
    sorted.sort(null);
    assertEquals(expected, sorted);
  }

  @Test
  void theRankEndOfAPriorityFollowsItsNamesAndPrecedesTheLowerOnes() {
    for (int p : new int[] {-3, 0, 4}) {
      String end = Participant.rankEnd(K, p);
      assertTrue(Participant.keyOf(K, -1L, p).compareTo(end) < 0, "every name of " + p + " before its end");
      assertTrue(Participant.keyOf(K, 1, p + 1).compareTo(end) < 0, "a higher priority before it");
      assertTrue(Participant.keyOf(K, 1, p - 1).compareTo(end) > 0, "a lower one after it");
    }
  }
}
