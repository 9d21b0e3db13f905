package dev.leasehold.local;

import dev.leasehold.LeaderElector;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.Guarantee;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LocalElectionTest {
  private static final Duration SOON = Duration.ofSeconds(5);

  @Test
  void fiftyElectorsOnOneKeyElectExactlyOneLeaderAndResignHandsOverWithRisingTokens()
      throws Exception {
    LocalStore store = LocalStore.create();
    Electors group = new Electors(store).start(50, b -> b);
    try {
      LeaderElector leader = group.awaitLeader(0, SOON);
      Leadership term = leader.leadership().orElseThrow();
      assertEquals(store.leaderOf(Electors.KEY).orElseThrow().fencingToken(), term.fencingToken());
      assertTrue(store.isCurrentTerm(term));
      assertEquals(Guarantee.IN_PROCESS, term.guarantee());
      Duration left = term.timeLeft();
      assertTrue(left.compareTo(Duration.ZERO) > 0 && left.compareTo(leader.config().leaseTtl()) <= 0,
          "time left to the deadline lies within the TTL: " + left);
      List<Long> tokens = new ArrayList<>(List.of(term.fencingToken()));
      for (int handover = 0; handover < 3; handover++) {
        int seen = group.events(leader).size();
        leader.resign();
        LeadershipEvent resigned = group.awaitEvent(leader, Cause.RESIGNED, seen, SOON);
        assertEquals(ElectorState.MASTER, resigned.from());
        assertFalse(term.isValid());
        assertEquals(Duration.ZERO, term.timeLeft(), "an ended term has no time left");
        LeadershipEvent ended = term.whenLost().toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertEquals(Cause.RESIGNED, ended.cause());
        LeaderElector next = group.awaitLeader(tokens.get(tokens.size() - 1), SOON);
        // The one that resigned sits out its hold-off, so another takes over.
        assertNotSame(leader, next);
        assertFalse(store.isCurrentTerm(term), "the resigned term is no longer current");
        leader = next;
        term = leader.leadership().orElseThrow();
        tokens.add(term.fencingToken());
      }
      for (int i = 1; i < tokens.size(); i++) {
        assertTrue(tokens.get(i) > tokens.get(i - 1), "tokens must strictly increase: " + tokens);
      }
    } finally {
      group.close();
    }
    group.assertNoOverlap();
    assertEquals(0, store.leaseCount(), "no lease left after every elector closed");
    assertEquals(0, store.keyCount(), "no key left after every elector closed");
    store.close();
  }

  @Test
  void electedTokensStrictlyIncreaseInTheOrderTermsBegan() {
    LocalStore store = LocalStore.create();
    Electors group = new Electors(store).start(3, b -> b.resignHoldoff(Duration.ZERO));
    try {
      long token = 0;
      for (int i = 0; i < 4; i++) {
        LeaderElector leader = group.awaitLeader(token, SOON);
        token = leader.leadership().orElseThrow().fencingToken();
        leader.resign();
      }
      group.awaitLeader(token, SOON);
    } finally {
      group.close();
    }
    List<Long> tokens = group.electedTokens();
    assertTrue(tokens.size() >= 5, tokens.toString());
    for (int i = 1; i < tokens.size(); i++) {
      assertTrue(tokens.get(i) > tokens.get(i - 1), "tokens must strictly increase: " + tokens);
    }
    group.assertNoOverlap();
    store.close();
  }

  @Test
  void electorsWithTheSameCandidateIdStillElectOneLeader() {
    LocalStore store = LocalStore.create();
    Electors group = new Electors(store);
    try {
      for (int i = 0; i < 5; i++) {
        group.add("twin", b -> b).start();
      }
      LeaderElector leader = group.awaitLeader(0, SOON);
      long token = leader.leadership().orElseThrow().fencingToken();
      assertEquals(1, group.leaders().size());
      leader.resign();
      LeaderElector next = group.awaitLeader(token, SOON);
      assertNotSame(leader, next, "ownership is by lease, not by the id in the key's value");
    } finally {
      group.close();
    }
    group.assertNoOverlap();
    assertEquals(0, store.leaseCount());
    store.close();
  }

  @Test
  void electionsOnDifferentKeysOfOneStoreAreIndependent() {
    LocalStore store = LocalStore.create();
    Electors a = new Electors(store).start(2, b -> b.electionKey("/a"));
    Electors b = new Electors(store).start(2, x -> x.electionKey("/b"));
    try {
      Electors.waiting(SOON).until(() -> a.leaders().size() == 1 && b.leaders().size() == 1);
      // Two election keys, and up to one participant key per follower (PROTOCOL.md §4.5).
      int keys = store.keyCount();
      assertTrue(keys >= 2 && keys <= 4, () -> keys + " keys");
      assertTrue(store.leaderOf("/a").isPresent() && store.leaderOf("/b").isPresent());
    } finally {
      a.close();
      b.close();
    }
    assertEquals(0, store.leaseCount());
    assertEquals(0, store.keyCount());
    store.close();
  }
}
