package dev.leasehold.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorConfig;
import dev.leasehold.Guarantee;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Every revoke etcd receives is a raft proposal, even for a lease already gone: a release whose
 * reply is merely late must not turn into several revokes. A release that never succeeds is
 * reported once as left to expire, and never as released.
 */
class ReleasesTest {
  private static final ElectorConfig CONFIG =
      ElectorConfig.builder().electionKey("/k").candidateId("me").leaseTtl(Duration.ofSeconds(5)).build();
  private static final long RPC = CONFIG.rpcTimeout().toNanos();

  /** RevokeStore keeps each revoke's reply for the test to complete. */
  private static final class RevokeStore implements StorePort {
    final List<CompletableFuture<Void>> revokes = new ArrayList<>();
    // When set, every revoke fails at once with it (a JVM shutting down under jetcd).
    RuntimeException failure;

    @Override
    public Guarantee guarantee() {
      return Guarantee.DISTRIBUTED;
    }

    @Override
    public void open() {}

    @Override
    public CompletionStage<? extends Input> call(StoreCall call) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void send(Command command, Consumer<Input> inbox) {}

    @Override
    public CompletionStage<?> release(long leaseId) {
      CompletableFuture<Void> f = new CompletableFuture<>();
      revokes.add(f);
      if (failure != null) {
        f.completeExceptionally(failure);
      }
      return f;
    }

    @Override
    public String describe(Throwable failure) {
      return String.valueOf(failure);
    }

    @Override
    public void close() {}
  }

  @Test
  void aRevokeAnsweredAfterItsTimeoutIsNotSentAgain() {
    ManualScheduler s = new ManualScheduler();
    RevokeStore store = new RevokeStore();
    Releases releases = new Releases(CONFIG, store, s, "t");
    releases.release(0x42, 5);
    assertEquals(1, store.revokes.size());
    // Timed out; the reply comes before the retry's backoff has passed.
    s.runFor(RPC + CONFIG.retryBackoffInitial().toNanos() / 4);
    assertEquals(1, store.revokes.size());
    store.revokes.get(0).complete(null);
    s.runFor(0);
    boolean[] done = {false};
    releases.whenDone(RPC, () -> done[0] = true);
    assertTrue(done[0], "the late reply ended the release");
    s.runFor(10 * RPC);
    assertEquals(1, store.revokes.size(), "and the retry it made unnecessary is not sent");
  }

  @Test
  void aRevokeThatIsNeverAnsweredIsRetriedAfterTheBackoff() {
    ManualScheduler s = new ManualScheduler();
    RevokeStore store = new RevokeStore();
    Releases releases = new Releases(CONFIG, store, s, "t");
    releases.release(0x42, 5);
    s.runFor(RPC + CONFIG.retryBackoffInitial().toNanos() + 1);
    assertEquals(2, store.revokes.size(), "retried one backoff after its timeout");
    store.revokes.get(1).complete(null);
    s.runFor(0);
    boolean[] done = {false};
    releases.whenDone(RPC, () -> done[0] = true);
    assertTrue(done[0]);
  }

  /** Failing is a release of lease 0x42 (TTL 5 s) whose every revoke fails with {@code failure}. */
  private record Failing(ManualScheduler clock, RevokeStore store, FailureLogTest.Lines lines, Releases releases) {
    static Failing with(RuntimeException failure) {
      ManualScheduler s = new ManualScheduler();
      RevokeStore store = new RevokeStore();
      store.failure = failure;
      FailureLogTest.Lines lines = new FailureLogTest.Lines();
      Releases releases = new Releases(CONFIG, store, s, "t", lines);
      releases.release(0x42, 5);
      return new Failing(s, store, lines, releases);
    }
  }

  @Test
  void aReleaseThatCloseGivesUpOnIsReportedOnceAsLeftToExpireAndTheTwiceTtlWarningStaysQuiet() {
    Failing f = Failing.with(new IllegalStateException("Shutdown in progress"));
    ManualScheduler s = f.clock();
    RevokeStore store = f.store();
    FailureLogTest.Lines lines = f.lines();
    Releases releases = f.releases();
    s.runFor(Duration.ofSeconds(4).toNanos());
    boolean[] done = {false};
    // close waits past twice the TTL (10 s): the bound's line is the one that says what happened.
    releases.whenDone(Duration.ofSeconds(8).toNanos(), () -> done[0] = true);
    s.runFor(Duration.ofSeconds(9).toNanos());
    assertTrue(done[0], "close's bound ended the wait");
    assertEquals(
        List.of("t: could not release lease 42 (java.lang.IllegalStateException: Shutdown in progress);"
            + " lease left to expire in <= TTL (5s)"),
        lines.list);
    int sent = store.revokes.size();
    s.runFor(Duration.ofSeconds(30).toNanos());
    assertEquals(sent, store.revokes.size(), "given up: no revoke after the bound");
    assertEquals(1, lines.list.size(), lines.list.toString());
  }

  @Test
  void aReleaseStillFailingAfterTwiceItsTtlWarnsOnceThenCloseSaysItWasLeftToExpire() {
    Failing f = Failing.with(new IllegalStateException("connection refused"));
    ManualScheduler s = f.clock();
    FailureLogTest.Lines lines = f.lines();
    Releases releases = f.releases();
    s.runFor(Duration.ofSeconds(30).toNanos());
    assertEquals(
        List.of("t: lease 42 still not released after twice its TTL (java.lang.IllegalStateException:"
            + " connection refused); retrying until the store answers"),
        lines.list);
    releases.whenDone(2 * RPC, () -> { });
    s.runFor(3 * RPC);
    assertEquals(2, lines.list.size(), lines.list.toString());
    assertEquals("t: could not release lease 42 (java.lang.IllegalStateException: connection refused);"
        + " lease left to expire in <= TTL (5s)", lines.list.get(1));
    assertTrue(lines.list.stream().noneMatch(l -> l.contains("lease released")), lines.list.toString());
  }
}
