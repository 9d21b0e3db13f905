package dev.leasehold.test.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.LeaderElector;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.test.VirtualElector;
import dev.leasehold.test.VirtualStore;
import dev.leasehold.test.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Example 1 of docs/testing.md: a leader's job must stop within its margin when leadership is
 * lost, tested on virtual time (a 5 s TTL and a 30 s outage pass in milliseconds of real time).
 */
class JobStopsWithinMarginTest {
  private static final String KEY = "/jobs/report";

  /** Write is one write of the job: who, with which token, when (virtual time). */
  record Write(String who, long token, Duration at) {}

  /** ReportJob writes every 100 ms while its instance leads, checking its term before each write. */
  static final class ReportJob {
    final List<Write> writes = new ArrayList<>();

    void install(VirtualElector instance, VirtualTime time) {
      instance.onLeadershipChanged(e -> {
        if (e.cause() == Cause.ELECTED) {
          Leadership term = e.leadership().orElseThrow();
          ScheduledFuture<?> job = instance.executor().scheduleAtFixedRate(() -> {
            if (term.isValid()) {
              writes.add(new Write(term.candidateId(), term.fencingToken(), time.elapsed()));
            }
          }, 0, 100, TimeUnit.MILLISECONDS);
          term.whenLost().thenRun(() -> job.cancel(false));
        }
      });
    }
  }

  /** Instances are two instances running the job, a leading (its first term), b following. */
  record Instances(VirtualElector a, VirtualElector b, ReportJob job, Leadership first) {
    static Instances startedWithALeader(VirtualStore store) {
      VirtualElector a = store.elector().electionKey(KEY).candidateId("a").leaseTtl(Duration.ofSeconds(5)).build();
      VirtualElector b = store.elector().electionKey(KEY).candidateId("b").leaseTtl(Duration.ofSeconds(5)).build();
      ReportJob job = new ReportJob();
      job.install(a, store.time());
      job.install(b, store.time());
      a.start();
      Leadership first = a.awaitLeadership(Duration.ofSeconds(10)).orElseThrow();
      b.start();
      return new Instances(a, b, job, first);
    }
  }

  @Test
  void theJobStopsBeforeTheStoreCouldElectAnotherLeader() {
    long realStart = System.nanoTime();
    VirtualTime time = VirtualTime.create();
    try (VirtualStore store = VirtualStore.create(time)) {
      Instances two = Instances.startedWithALeader(store);
      VirtualElector a = two.a();
      ReportJob job = two.job();
      Leadership first = two.first();
      time.advance(Duration.ofSeconds(3));

      List<LeadershipEvent> lost = new ArrayList<>();
      first.whenLost().thenAccept(lost::add);
      store.faults().outage(Duration.ofSeconds(30));
      // The store expires the lease on its own clock, TTL after the last renewal it applied.
      assertTrue(time.runUntil(() -> store.local().leaderOf(KEY).isEmpty(), Duration.ofSeconds(10)));
      Duration expiredAt = time.elapsed();
      Duration lastWrite = lastWriteOf(job.writes, "a");

      assertEquals(Cause.LEASE_EXPIRED_LOCALLY, lost.get(0).cause(), "the leader stepped down by its deadline");
      Duration margin = a.config().safetyMargin();
      assertTrue(expiredAt.minus(lastWrite).compareTo(margin) >= 0,
          "last write at " + lastWrite + ", store expiry at " + expiredAt + ": less than the margin " + margin);

      assertTrue(job.writes.stream().noneMatch(w -> w.at().compareTo(lastWrite) > 0),
          "nobody wrote after the first term");

      time.advance(Duration.ofSeconds(30)); // the outage ends: one of them wins the next term
      Write next = job.writes.get(job.writes.size() - 1);
      assertTrue(next.token() > first.fencingToken(), "the next term's writes carry a higher token");
      System.out.printf("example 1: outage of 30 s, leader stopped %d ms before the store's expiry"
              + " (margin %d ms); %s of virtual time in %d ms of real time%n",
          expiredAt.minus(lastWrite).toMillis(), margin.toMillis(), time.elapsed(),
          (System.nanoTime() - realStart) / 1_000_000);
    }
  }

  @Test
  void aPausedLeaderWritesNothingWhenItWakesUpPastItsDeadline() {
    VirtualTime time = VirtualTime.create();
    try (VirtualStore store = VirtualStore.create(time)) {
      Instances two = Instances.startedWithALeader(store);
      VirtualElector a = two.a();
      VirtualElector b = two.b();
      ReportJob job = two.job();
      Leadership first = two.first();
      time.advance(Duration.ofSeconds(1));

      Duration pausedAt = time.elapsed();
      store.faults().pause(a, Duration.ofSeconds(10)); // a long GC: past the deadline and the TTL
      assertTrue(b.awaitLeadership(Duration.ofSeconds(10)).isPresent(), "b took over during the pause");
      time.advance(Duration.ofSeconds(10));

      assertFalse(first.isValid());
      assertFalse(a.isLeader());
      assertTrue(job.writes.stream().noneMatch(w -> w.who().equals("a") && w.at().compareTo(pausedAt) > 0),
          "a's job, held by the pause, checked its term when it woke up and did not write");
    }
  }

  @Test
  void aFaultNeedsAnInstanceOfItsOwnStore() {
    VirtualTime time = VirtualTime.create();
    try (VirtualStore one = VirtualStore.create(time); VirtualStore other = VirtualStore.create(time)) {
      LeaderElector stranger = other.elector().electionKey(KEY).build();
      IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(
          IllegalArgumentException.class, () -> one.faults().pause(stranger, Duration.ofSeconds(1)));
      assertTrue(e.getMessage().startsWith("instance must be an elector built by this VirtualStore"), e.getMessage());
    }
  }

  private static Duration lastWriteOf(List<Write> writes, String who) {
    return writes.stream().filter(w -> w.who().equals(who)).map(Write::at).reduce((x, y) -> y).orElseThrow();
  }
}
