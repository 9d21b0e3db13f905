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
 * reply is merely late must not turn into several revokes.
 */
class ReleasesTest {
  private static final ElectorConfig CONFIG =
      ElectorConfig.builder().electionKey("/k").candidateId("me").leaseTtl(Duration.ofSeconds(5)).build();
  private static final long RPC = CONFIG.rpcTimeout().toNanos();

  /** RevokeStore keeps each revoke's reply for the test to complete. */
  private static final class RevokeStore implements StorePort {
    final List<CompletableFuture<Void>> revokes = new ArrayList<>();

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
}
