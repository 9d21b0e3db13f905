package dev.leasehold.select;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorConfig;
import dev.leasehold.ElectorState;
import dev.leasehold.LeaderElector;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.local.LocalLeaderElector;
import dev.leasehold.local.LocalStore;
import dev.leasehold.runtime.ThreadScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The composite's switching rules on two in-process stores: "preferred" stands for etcd (its
 * faults for an outage), "fallback" for the local backend. Real threads, TTL 1 s.
 */
class FallbackRuntimeTest {
  private static final Duration TTL = Duration.ofSeconds(1);
  private static final Duration SOON = Duration.ofSeconds(10);
  private static final String KEY = "/fallback-test";

  private final LocalStore preferred = LocalStore.create();
  private final LocalStore fallback = LocalStore.create();
  private final List<LeadershipEvent> events = new CopyOnWriteArrayList<>();
  private FallbackRuntime elector;

  @AfterEach
  void closeEverything() {
    if (elector != null) {
      elector.close();
      assertEquals(ElectorState.STOPPED, elector.state());
      await().atMost(SOON).until(() -> preferred.leaseCount() == 0 && fallback.leaseCount() == 0);
    }
    preferred.close();
    fallback.close();
  }

  private static Supplier<LeaderElector> on(LocalStore store, String key) {
    ElectorConfig c = ElectorConfig.builder().electionKey(key).candidateId("me").leaseTtl(TTL).build();
    return () -> LocalLeaderElector.builder().store(store).config(c).build();
  }

  private FallbackRuntime start(FallbackPolicy policy, boolean twoTiers) {
    ElectorConfig c = ElectorConfig.builder().electionKey(KEY).candidateId("me").leaseTtl(TTL).build();
    List<BackendTier> tiers = new ArrayList<>();
    tiers.add(new BackendTier(Backend.ETCD, on(preferred, KEY), on(preferred, KEY + ".fallback-probe")));
    if (twoTiers) {
      tiers.add(new BackendTier(Backend.LOCAL, on(fallback, KEY), null));
    }
    elector = new FallbackRuntime(c, tiers, policy, TTL, Duration.ofMillis(300), new ThreadScheduler(), "me@" + KEY);
    elector.onLeadershipChanged(events::add);
    elector.start();
    return elector;
  }

  private Leadership leadershipSoon() {
    try {
      return elector.awaitLeadership(SOON).orElseThrow();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  private LeadershipEvent awaitEvent(Cause cause) {
    return await().atMost(SOON).until(() -> first(cause), Optional::isPresent).orElseThrow();
  }

  private Optional<LeadershipEvent> first(Cause cause) {
    return events.stream().filter(e -> e.cause() == cause).findFirst();
  }

  private List<Cause> causes() {
    return events.stream().map(LeadershipEvent::cause).toList();
  }

  /** assertPaired: each ELECTED is followed by one loss before the next; FALLBACKs fall between terms. */
  private void assertPaired() {
    boolean leading = false;
    for (LeadershipEvent e : events) {
      if (e.isElected()) {
        assertFalse(leading, "ELECTED twice: " + causes());
        leading = true;
      } else if (e.isLost()) {
        assertTrue(leading, "a loss without a term: " + causes());
        leading = false;
      }
      if (e.cause() == Cause.FALLBACK || e.cause() == Cause.FALLBACK_ENDED) {
        assertFalse(leading, e.cause() + " during a term: " + causes());
      }
    }
  }

  @Test
  void failClosedStaysFollowerWhileItsOnlyStoreIsDown() {
    preferred.faults().makeUnavailable();
    start(FallbackPolicy.FAIL_CLOSED, false);
    LeadershipEvent down = awaitEvent(Cause.STORE_UNAVAILABLE);
    assertTrue(down.reason().isPresent());
    await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4))
        .until(() -> !elector.isLeader() && elector.state() != ElectorState.MASTER);
    assertFalse(causes().contains(Cause.ELECTED), causes().toString());
    assertEquals(Optional.empty(), elector.fallbackInForce());
    preferred.faults().makeAvailable();
    awaitEvent(Cause.ELECTED);
  }

  @Test
  void aLeaderFallsBackOnlyAfterItsTermEndedAndThePreferredStoreStayedDownForFallbackAfter() {
    start(FallbackPolicy.FALL_BACK, true);
    Leadership onPreferred = awaitEvent(Cause.ELECTED).leadership().orElseThrow();
    assertTrue(preferred.isCurrentTerm(onPreferred));
    preferred.faults().makeUnavailable();

    LeadershipEvent fellBack = awaitEvent(Cause.FALLBACK);
    LeadershipEvent down = first(Cause.STORE_UNAVAILABLE).orElseThrow();
    LeadershipEvent expired = first(Cause.LEASE_EXPIRED_LOCALLY).orElseThrow();
    assertTrue(expired.nanoTime() <= fellBack.nanoTime(), "the term ended first: " + causes());
    assertTrue(fellBack.nanoTime() - down.nanoTime() >= TTL.toNanos(), "waited fallbackAfter");
    assertEquals(ElectorState.FOLLOWER, fellBack.from());
    assertTrue(fellBack.reason().orElseThrow().startsWith("from etcd to local: etcd unreachable for "), fellBack.toString());
    assertEquals(Optional.of(Backend.LOCAL), elector.fallbackInForce());

    Leadership onFallback = leadershipSoon();
    assertTrue(fallback.isCurrentTerm(onFallback), "the new term is the fallback store's");
    assertPaired();
  }

  @Test
  void aReturnEndsTheFallbackTermBeforeAnyTermOnThePreferredStoreBegins() {
    preferred.faults().makeUnavailable();
    start(FallbackPolicy.FALL_BACK_AND_RETURN, true);
    awaitEvent(Cause.FALLBACK);
    Leadership onFallback = leadershipSoon();
    assertTrue(fallback.isCurrentTerm(onFallback));
    List<LeadershipEvent> lostSeen = new CopyOnWriteArrayList<>();
    onFallback.whenLost().thenAccept(lostSeen::add);

    preferred.faults().makeAvailable();
    LeadershipEvent returned = awaitEvent(Cause.FALLBACK_ENDED);
    await().atMost(SOON).until(() -> events.stream()
        .anyMatch(e -> e.cause() == Cause.ELECTED && e.nanoTime() > returned.nanoTime()));
    LeadershipEvent back = events.stream()
        .filter(e -> e.cause() == Cause.ELECTED && e.nanoTime() > returned.nanoTime()).findFirst().orElseThrow();
    assertTrue(preferred.isCurrentTerm(back.leadership().orElseThrow()));
    assertFalse(onFallback.isValid(), "the fallback term is over");
    assertEquals(1, lostSeen.size(), "its whenLost completed");
    assertEquals(Cause.RESIGNED, lostSeen.get(0).cause());
    assertTrue(lostSeen.get(0).nanoTime() <= returned.nanoTime(), "the fallback term ended before the return");
    assertEquals(Optional.empty(), elector.fallbackInForce());
    assertEquals(Backend.ETCD, elector.activeBackend());
    await().atMost(SOON).until(() -> fallback.leaseCount() == 0);
    assertPaired();
  }

  @Test
  void anOutageShorterThanFallbackAfterCausesNoFallback() {
    start(FallbackPolicy.FALL_BACK, true);
    awaitEvent(Cause.ELECTED);
    preferred.faults().makeUnavailable();
    awaitEvent(Cause.STORE_UNAVAILABLE);
    preferred.faults().makeAvailable();
    awaitEvent(Cause.STORE_RECOVERED);
    await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
        .until(() -> !causes().contains(Cause.FALLBACK) && elector.fallbackInForce().isEmpty());
    assertPaired();
  }

  @Test
  void closingWhileFallenBackEndsTheFallbackTermWithClosedAndStops() throws Exception {
    preferred.faults().makeUnavailable();
    start(FallbackPolicy.FALL_BACK_AND_RETURN, true);
    Leadership onFallback = await().atMost(SOON).until(
        () -> elector.leadership().filter(t -> fallback.isCurrentTerm(t)), Optional::isPresent).orElseThrow();
    elector.close();
    assertEquals(ElectorState.STOPPED, elector.state());
    LeadershipEvent last = events.get(events.size() - 1);
    assertEquals(Cause.CLOSED, last.cause());
    assertEquals(ElectorState.MASTER, last.from());
    assertEquals(ElectorState.STOPPED, last.to());
    assertFalse(onFallback.isValid());
    assertEquals(Cause.CLOSED, onFallback.whenLost().toCompletableFuture().get().cause());
    assertPaired();
  }
}
