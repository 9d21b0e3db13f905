package dev.leasehold.etcd.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.leasehold.Participant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Queue: the MASTER's view, from the term's read and the watch, whichever arrives first. */
class QueueTest {
  private static Participant p(String id, long lease, long rev) {
    return new Participant(id, lease, rev, rev);
  }

  @Test
  void theHeadIsTheOldestEntryOtherThanTheOwnLease() {
    Queue q = new Queue();
    q.reset(List.of(p("b", 2, 20), p("a", 1, 10), p("me", 9, 5)), 30);
    assertEquals("a", q.successor(9).candidateId());
    q.withdrawn(1, 31);
    assertEquals("b", q.successor(9).candidateId());
  }

  @Test
  void aJoinTheWatchShowedAfterTheReadSurvivesTheReadsLateReply() {
    Queue q = new Queue();
    q.enlisted(p("new", 3, 41)); // the watch event comes first
    q.reset(List.of(p("old", 2, 20)), 40); // the read, served at 40, arrives after it
    assertEquals("old", q.successor(9).candidateId());
    q.withdrawn(2, 42);
    assertEquals("new", q.successor(9).candidateId(), "the join at 41 is still known");
  }

  @Test
  void aDepartureTheWatchShowedAfterTheReadIsNotUndoneByIt() {
    Queue q = new Queue();
    q.withdrawn(2, 41); // its lease ended after the read was served
    q.reset(List.of(p("gone", 2, 20)), 40);
    assertNull(q.successor(9), "the read's stale entry stays withdrawn");
  }

  @Test
  void aDepartureBeforeTheReadDoesNotHideALaterRejoin() {
    Queue q = new Queue();
    q.withdrawn(2, 35);
    q.reset(List.of(p("back", 2, 38)), 40);
    assertEquals("back", q.successor(9).candidateId());
  }

  @Test
  void clearForgetsTheViewForTheNextTerm() {
    Queue q = new Queue();
    q.reset(List.of(p("a", 1, 10)), 20);
    q.clear();
    assertNull(q.successor(9));
  }
}
