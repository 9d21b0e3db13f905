package dev.leasehold.sample;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.spring.LeaderOnly;
import dev.leasehold.test.spring.LeadershipControl;
import dev.leasehold.test.spring.LeaseholdTest;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Example 4 of docs/testing.md: a {@code @LeaderOnly @Scheduled} bean in a {@code
 * @SpringBootTest} with {@link LeaseholdTest}: it runs once the test grants leadership, stops
 * when the test revokes it, and a call in progress is interrupted; no store runs and no TTL is
 * waited out (the scheduler's own 10 ms trigger is the only wait).
 */
@SpringBootTest(classes = ScheduledReportSliceTest.ReportApplication.class,
    properties = {"leasehold.key=/reports", "spring.main.web-application-type=none"})
@LeaseholdTest
class ScheduledReportSliceTest {
  private static final Duration BOUND = Duration.ofSeconds(10);

  @Autowired LeadershipControl leadership;
  @Autowired Report report;

  @Test
  void theReportRunsOnlyWhileLeadingAndIsInterruptedWhenTheTermEnds() {
    long start = System.nanoTime();
    awaitTicks(3);
    assertEquals(0, report.runs(), "a follower skips the report");

    Leadership term = leadership.grant();
    await().atMost(BOUND).until(() -> report.runs() > 0);
    assertEquals(term.fencingToken(), report.lastToken());

    LeadershipEvent lost = leadership.revoke(Cause.RESIGNED);
    assertEquals(Cause.RESIGNED, lost.cause());
    int afterLoss = report.runs();
    awaitTicks(3);
    assertTrue(report.runs() <= afterLoss + 1, "at most a call already past its check finishes");

    report.blockNextRun();
    leadership.grant();
    await().atMost(BOUND).until(report::isBlocked);
    leadership.revoke(Cause.LEASE_EXPIRED_LOCALLY);
    await().atMost(BOUND).until(report::wasInterrupted);
    System.out.printf("example 4: granted, revoked twice, a running call interrupted, in %d ms of real time%n",
        (System.nanoTime() - start) / 1_000_000);
  }

  private void awaitTicks(int n) {
    int from = report.ticks();
    await().atMost(BOUND).until(() -> report.ticks() >= from + n);
  }

  /**
   * Report is the leader-only job: every 10 ms, on the leader only. Its state is read through
   * methods: the bean is a proxy (for {@code @LeaderOnly}).
   */
  public static class Report {
    final AtomicInteger ticks = new AtomicInteger();
    final AtomicInteger runs = new AtomicInteger();
    final AtomicBoolean block = new AtomicBoolean();
    final CountDownLatch blocked = new CountDownLatch(1);
    final AtomicBoolean interrupted = new AtomicBoolean();
    volatile long lastToken;

    public int ticks() {
      return ticks.get();
    }

    public int runs() {
      return runs.get();
    }

    public long lastToken() {
      return lastToken;
    }

    public void blockNextRun() {
      block.set(true);
    }

    public boolean isBlocked() {
      return blocked.getCount() == 0;
    }

    public boolean wasInterrupted() {
      return interrupted.get();
    }

    /** tick runs on every instance: the scheduler's heartbeat, to know triggers happened. */
    @Scheduled(fixedDelay = 10)
    public void tick() {
      ticks.incrementAndGet();
    }

    /** report runs on the leader only; with {@code block} set, it waits until interrupted. */
    @Scheduled(fixedDelay = 10)
    @LeaderOnly(fenced = true)
    public void report() {
      runs.incrementAndGet();
      lastToken = dev.leasehold.spring.CurrentLeadership.get().fencingToken();
      if (block.getAndSet(false)) {
        blocked.countDown();
        try {
          new CountDownLatch(1).await();
        } catch (InterruptedException e) {
          interrupted.set(true);
        }
      }
    }
  }

  /** ReportApplication is the application under test. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  @EnableScheduling
  static class ReportApplication {
    @Bean
    Report report() {
      return new Report();
    }
  }
}
