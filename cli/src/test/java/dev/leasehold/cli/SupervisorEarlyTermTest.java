package dev.leasehold.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A term won with its local deadline within {@code --grace} plus the kill reserve (a campaign
 * answered late, PROTOCOL.md §4.4) starts its child only once a renewal has moved the deadline
 * out: started at once, the child would be sent SIGTERM as it starts, and a cron job killed
 * half-way leaves its work half done. The elector here is a term whose time left the test sets,
 * and it reports each renewal to its {@code onRenewal} listeners on a dispatcher thread of its
 * own, as the real one does: the supervisor's decision is what is under test, the elector's
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
    ElectorStub elector = new ElectorStub(term);
    CompletableFuture<Integer> exit = run(elector, marker, null, START_FLOOR);

    await().during(Duration.ofMillis(400)).atMost(Duration.ofSeconds(2)).until(() -> !Files.exists(marker));
    elector.renew(5_000);
    await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(marker));
    assertEquals(0, exit.get(10, TimeUnit.SECONDS), "the child ran to its end and its code is run's");
    assertEquals(0, elector.listening(), "the renewal listener was closed once the child could start");
  }

  @Test
  void aRenewalWakesTheWaitingSupervisorWithoutWaitingForTheTermsDeadline() throws Exception {
    Path marker = dir.resolve("started");
    // 30 s left under a 60 s floor: looking again only at the term's deadline would start the child
    // after 30 s, so a child within the 10 s below was woken by the renewal.
    TermStub term = new TermStub(30_000);
    ElectorStub elector = new ElectorStub(term);
    CompletableFuture<Integer> exit = run(elector, marker, null, Duration.ofSeconds(60));

    await().atMost(Duration.ofSeconds(10)).until(() -> elector.listening() == 1);
    elector.renew(90_000).get(5, TimeUnit.SECONDS); // the listener returned: it only signals
    await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(marker));
    assertEquals(0, exit.get(10, TimeUnit.SECONDS), "the child ran to its end and its code is run's");
    assertEquals(0, elector.listening(), "the renewal listener was closed once the child could start");
  }

  @Test
  void aTermWithNoRenewalWithinTimeoutExits124NamingItsTokenAndTheFloor() throws Exception {
    Path marker = dir.resolve("started");
    TermStub term = new TermStub(700);
    ElectorStub elector = new ElectorStub(term);
    Logger leasehold = (Logger) LoggerFactory.getLogger("leasehold");
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    leasehold.addAppender(logged);
    try {
      int code = run(elector, marker, Duration.ofSeconds(1), START_FLOOR).get(10, TimeUnit.SECONDS);

      assertEquals(Leasehold.NOT_ACQUIRED, code, "the exit code of not leading within --timeout");
      assertFalse(Files.exists(marker), "no child for a term that never had room to start it");
      assertEquals(0, elector.listening(), "the renewal listener was closed at the timeout");
      String said = logged.list.stream().map(ILoggingEvent::getFormattedMessage)
          .filter(m -> m.contains("--timeout")).findFirst().orElse("nothing about --timeout");
      assertTrue(said.startsWith("leader with fencing token 7, but no child within --timeout 1s: the term's local"
          + " deadline was too close to start it (700 ms left, under the 847 ms floor a healthy leader has) and no"
          + " renewal moved it out in time"), said);
      assertFalse(said.contains("another candidate leads"), said);
    } finally {
      leasehold.detachAppender(logged);
    }
  }

  @Test
  void aTermThatEndsBeforeItsFirstRenewalStartsNoChild() throws Exception {
    Path marker = dir.resolve("started");
    TermStub term = new TermStub(300);
    ElectorStub elector = new ElectorStub(term);
    CompletableFuture<Integer> exit = run(elector, marker, Duration.ofSeconds(2), START_FLOOR);

    await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(2)).until(() -> !Files.exists(marker));
    term.lost();
    int code = exit.get(10, TimeUnit.SECONDS);
    assertFalse(Files.exists(marker), "no child for a term that ended before its first renewal");
    assertNotEquals(0, code, "not leader within --timeout");
    assertEquals(2, elector.asked.get(), "it asked for the next term once the early one had ended");
    assertEquals(0, elector.listening(), "the renewal listener was closed when the term ended");
  }

  private CompletableFuture<Integer> run(LeaderElector elector, Path marker, Duration timeout, Duration startFloor)
      throws InterruptedException {
    Guard guard = Guard.choose(false).guard();
    assertNotNull(guard, "setsid and setpriv (util-linux) must be on PATH");
    Supervisor.Settings settings = new Supervisor.Settings(
        List.of("sh", "-c", "touch '" + marker + "'"), GRACE, RunCommand.KILL_RESERVE, startFloor, timeout, false, guard,
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

  /**
   * ElectorStub hands out one term, and after it none; {@link #renew} moves the term's deadline.
   * Listeners hear of events on its dispatcher thread.
   */
  private static final class ElectorStub implements LeaderElector {
    private final TermStub term;
    private final List<LeadershipListener> leadershipListeners = new CopyOnWriteArrayList<>();
    private final List<Consumer<Renewal>> renewalListeners = new CopyOnWriteArrayList<>();
    private final ExecutorService dispatcher = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "dispatcher");
      t.setDaemon(true);
      return t;
    });
    final AtomicInteger asked = new AtomicInteger();

    ElectorStub(TermStub term) {
      this.term = term;
    }

    /** renew confirms a renewal: the term's time left moves first, then the listeners hear of it. */
    Future<?> renew(long leftMillis) {
      term.renewed(leftMillis);
      Renewal r = new Renewal(ElectorState.MASTER, Duration.ofMillis(3), System.nanoTime());
      return dispatcher.submit(() -> renewalListeners.forEach(l -> l.accept(r)));
    }

    /** listening is how many renewal listeners are subscribed. */
    int listening() {
      return renewalListeners.size();
    }

    @Override public CompletionStage<Leadership> whenLeading() {
      return asked.incrementAndGet() == 1 ? CompletableFuture.completedFuture(term) : new CompletableFuture<>();
    }
    @Override public Optional<Leadership> awaitLeadership(Duration timeout) { throw new UnsupportedOperationException(); }
    @Override public ElectorConfig config() { throw new UnsupportedOperationException(); }
    @Override public void start() {
      // The store answered: run tells "no renewal in time" (124) from "the store is unreachable" (123).
      LeadershipEvent elected = new LeadershipEvent(ElectorState.FOLLOWER, ElectorState.MASTER,
          LeadershipEvent.Cause.ELECTED, Optional.of(new LeaderInfo("me", term.fencingToken(), term.leaseId())),
          Instant.now(), System.nanoTime(), Optional.of(term), Optional.empty());
      dispatcher.execute(() -> leadershipListeners.forEach(l -> l.onLeadershipChanged(elected)));
    }
    @Override public ElectorState state() { return ElectorState.MASTER; }
    @Override public boolean isLeader() { return term.isValid(); }
    @Override public Optional<LeaderInfo> currentLeader() { return Optional.empty(); }
    @Override public ElectorHealth health() { throw new UnsupportedOperationException(); }
    @Override public Optional<Leadership> leadership() { return Optional.of(term); }
    @Override public void resign() {}
    @Override public Subscription onLeadershipChanged(LeadershipListener listener) {
      leadershipListeners.add(listener);
      return () -> leadershipListeners.remove(listener);
    }
    @Override public Subscription onLeadershipChanged(LeadershipListener listener, Executor executor) {
      return () -> {};
    }
    @Override public Subscription onRenewal(Consumer<Renewal> listener) {
      // A wrapper of its own, so that closing removes this subscription even if one listener is added twice.
      Consumer<Renewal> subscribed = listener::accept;
      renewalListeners.add(subscribed);
      return () -> renewalListeners.remove(subscribed);
    }
    @Override public void close() { dispatcher.shutdown(); }
    @Override public CompletionStage<Void> closeAsync() { return CompletableFuture.completedFuture(null); }
  }
}
