package dev.leasehold.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.leasehold.ElectorConfig;
import dev.leasehold.ElectorHealth;
import dev.leasehold.ElectorState;
import dev.leasehold.Guarantee;
import dev.leasehold.LeaderElector;
import dev.leasehold.LeaderInfo;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipListener;
import dev.leasehold.Renewal;
import dev.leasehold.Subscription;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A term won with its local deadline within {@code --grace} plus the kill reserve (a campaign
 * answered late, PROTOCOL.md §4.4) starts its child only once a renewal has moved the deadline
 * out: started at once, the child would be sent SIGTERM as it starts, and a cron job killed
 * half-way leaves its work half done. The elector here is a term whose time left the test sets,
 * standing in for the renewals: the supervisor's decision is what is under test, the elector's
 * deadlines are tested with its machine.
 */
class SupervisorEarlyTermTest {
  private static final Duration GRACE = Duration.ofMillis(400);
  // What a healthy leader always has left at TTL 2 s on etcd (RunCommand.healthyFloor): 847 ms.
  private static final Duration START_FLOOR = Duration.ofMillis(847);

  @TempDir Path dir;

  @Test
  void theChildStartsOnlyAfterTheFirstRenewalMovesTheDeadlineOut() throws Exception {
    Path marker = dir.resolve("started");
    // 700 ms left: more than --grace plus the kill reserve (600 ms), less than a healthy leader has.
    TermStub term = new TermStub(700);
    CompletableFuture<Integer> exit = run(new ElectorStub(term), marker, null);

    await().during(Duration.ofMillis(400)).atMost(Duration.ofSeconds(2)).until(() -> !Files.exists(marker));
    term.renewed(5_000);
    await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(marker));
    assertEquals(0, exit.get(10, TimeUnit.SECONDS), "the child ran to its end and its code is run's");
  }

  @Test
  void aTermThatEndsBeforeItsFirstRenewalStartsNoChild() throws Exception {
    Path marker = dir.resolve("started");
    TermStub term = new TermStub(300);
    ElectorStub elector = new ElectorStub(term);
    CompletableFuture<Integer> exit = run(elector, marker, Duration.ofSeconds(2));

    await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(2)).until(() -> !Files.exists(marker));
    term.lost();
    int code = exit.get(10, TimeUnit.SECONDS);
    assertFalse(Files.exists(marker), "no child for a term that ended before its first renewal");
    assertNotEquals(0, code, "not leader within --timeout");
    assertEquals(2, elector.asked.get(), "it asked for the next term once the early one had ended");
  }

  private CompletableFuture<Integer> run(LeaderElector elector, Path marker, Duration timeout)
      throws InterruptedException {
    Guard guard = Guard.choose(false).guard();
    assertNotNull(guard, "setsid and setpriv (util-linux) must be on PATH");
    Supervisor.Settings settings = new Supervisor.Settings(
        List.of("sh", "-c", "touch '" + marker + "'"), GRACE, RunCommand.KILL_RESERVE, START_FLOOR, timeout, false, guard,
        "etcd", "stub", false, null);
    CompletableFuture<Integer> exit = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        exit.complete(new Supervisor(elector, settings).run());
      } catch (Throwable e) {
        exit.completeExceptionally(e);
      }
    }, "supervisor");
    t.setDaemon(true);
    t.start();
    return exit;
  }

  /**
   * TermStub is a term whose time left the test sets, as renewals would move it; it stands
   * still in between, so that a slow start of the supervisor's thread cannot end it first.
   */
  private static final class TermStub implements Leadership {
    private final AtomicLong left = new AtomicLong();
    private final CompletableFuture<LeadershipEvent> lost = new CompletableFuture<>();

    TermStub(long leftMillis) {
      renewed(leftMillis);
    }

    void renewed(long leftMillis) {
      left.set(leftMillis * 1_000_000L);
    }

    void lost() {
      left.set(0);
      lost.complete(null);
    }

    @Override public String electionKey() { return "/k"; }
    @Override public String candidateId() { return "me"; }
    @Override public long fencingToken() { return 7; }
    @Override public long leaseId() { return 1; }
    @Override public Duration grantedTtl() { return Duration.ofSeconds(2); }
    @Override public Instant electedAt() { return Instant.now(); }
    @Override public Guarantee guarantee() { return Guarantee.DISTRIBUTED; }
    @Override public Duration timeLeft() { return Duration.ofNanos(left.get()); }
    @Override public boolean isValid() { return !lost.isDone() && left.get() > 0; }
    @Override public void heartbeat() {}
    @Override public void resign() {}
    @Override public CompletionStage<LeadershipEvent> whenLost() { return lost; }
  }

  /** ElectorStub hands out one term, and after it none. */
  private static final class ElectorStub implements LeaderElector {
    private final TermStub term;
    final AtomicInteger asked = new AtomicInteger();

    ElectorStub(TermStub term) {
      this.term = term;
    }

    @Override public CompletionStage<Leadership> whenLeading() {
      return asked.incrementAndGet() == 1 ? CompletableFuture.completedFuture(term) : new CompletableFuture<>();
    }
    @Override public Optional<Leadership> awaitLeadership(Duration timeout) { throw new UnsupportedOperationException(); }
    @Override public ElectorConfig config() { throw new UnsupportedOperationException(); }
    @Override public void start() {}
    @Override public ElectorState state() { return ElectorState.MASTER; }
    @Override public boolean isLeader() { return term.isValid(); }
    @Override public Optional<LeaderInfo> currentLeader() { return Optional.empty(); }
    @Override public ElectorHealth health() { throw new UnsupportedOperationException(); }
    @Override public Optional<Leadership> leadership() { return Optional.of(term); }
    @Override public void resign() {}
    @Override public Subscription onLeadershipChanged(LeadershipListener listener) { return () -> {}; }
    @Override public Subscription onLeadershipChanged(LeadershipListener listener, Executor executor) {
      return () -> {};
    }
    @Override public Subscription onRenewal(Consumer<Renewal> listener) { return () -> {}; }
    @Override public void close() {}
    @Override public CompletionStage<Void> closeAsync() { return CompletableFuture.completedFuture(null); }
  }
}
