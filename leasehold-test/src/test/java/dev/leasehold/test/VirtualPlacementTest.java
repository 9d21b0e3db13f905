package dev.leasehold.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.LeaderInfo;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Placement on virtual time: {@code transferTo} and a health check that turns unhealthy move the
 * term as in production, deterministically and without waiting in real time (the health check
 * runs on the simulated dispatcher, polled on the virtual clock).
 */
class VirtualPlacementTest {
  private static final String KEY = "/placement";
  private final VirtualTime time = VirtualTime.create();
  private final VirtualStore store = VirtualStore.create(time);
  private final AtomicBoolean aHealthy = new AtomicBoolean(true);
  private final VirtualElector a = store.elector().electionKey(KEY).candidateId("a").leaseTtl(Duration.ofSeconds(2))
      .healthCheck(aHealthy::get).build();
  private final VirtualElector b = store.elector().electionKey(KEY).candidateId("b").leaseTtl(Duration.ofSeconds(2))
      .build();

  @AfterEach
  void close() {
    store.close();
  }

  private Leadership aLeads() {
    a.start();
    Leadership term = a.awaitLeadership(Duration.ofSeconds(10)).orElseThrow();
    b.start();
    time.advance(Duration.ofSeconds(1));
    return term;
  }

  @Test
  void transferToHandsTheTermToTheNamedCandidate() {
    Leadership first = aLeads();
    LeaderInfo next = time.await(a.transferTo("b").toCompletableFuture(), Duration.ofSeconds(5));
    assertEquals("b", next.candidateId());
    Leadership second = b.awaitLeadership(Duration.ofSeconds(5)).orElseThrow();
    assertEquals(next.fencingToken(), second.fencingToken());
    assertEquals(Cause.TRANSFERRED, time.await(first.whenLost(), Duration.ofSeconds(5)).cause());
  }

  @Test
  void anUnhealthyLeaderYieldsAfterThreeAnswersInARow() {
    Leadership first = aLeads();
    Duration brokeAt = time.elapsed();
    aHealthy.set(false);
    LeadershipEvent lost = time.await(first.whenLost(), Duration.ofSeconds(10));
    assertEquals(Cause.UNHEALTHY, lost.cause());
    Duration took = time.elapsed().minus(brokeAt);
    // Polled every second (the default), three answers in a row: between 2 and 3 s of virtual time.
    assertTrue(took.compareTo(Duration.ofSeconds(2)) >= 0 && took.compareTo(Duration.ofMillis(3100)) <= 0,
        took.toString());
    assertTrue(b.awaitLeadership(Duration.ofSeconds(5)).isPresent());
    assertTrue(a.health().unhealthy().orElseThrow().contains("out of the queue"), a.health().toString());
  }
}
