package dev.leasehold.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorConfig;
import dev.leasehold.Guarantee;
import dev.leasehold.LeaderInfo;
import dev.leasehold.etcd.protocol.ElectionMachine;
import dev.leasehold.etcd.protocol.ProtocolConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A transfer asked for while the elector closes is refused on the dispatcher, as every transfer's
 * answer is: a callback the caller attached to the stage must never run on the event loop.
 * Driven on virtual time through the real runtime and the etcd machine.
 */
class TransferWhileClosingTest {
  private static final ElectorConfig CONFIG = ElectorConfig.builder().electionKey("/k").candidateId("me").build();

  /** A store that never answers: the test needs no reply. */
  private static final class SilentStore implements StorePort {
    @Override
    public Guarantee guarantee() {
      return Guarantee.DISTRIBUTED;
    }

    @Override
    public void open() {}

    @Override
    public CompletionStage<? extends Input> call(StoreCall call) {
      return new CompletableFuture<>();
    }

    @Override
    public void send(Command command, Consumer<Input> inbox) {}

    @Override
    public CompletionStage<?> release(long leaseId) {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public String describe(Throwable failure) {
      return String.valueOf(failure);
    }

    @Override
    public void close() {}
  }

  /** Events that wait in a list until the test runs them, standing in for the dispatcher thread. */
  private static final class HeldEvents implements Scheduler {
    final List<Runnable> held = new ArrayList<>();
    final ManualScheduler loop;

    HeldEvents(ManualScheduler loop) {
      this.loop = loop;
    }

    @Override
    public long nanoTime() {
      return loop.nanoTime();
    }

    @Override
    public void execute(Runnable task) {
      loop.execute(task);
    }

    @Override
    public Cancellable schedule(Runnable task, long delayNanos) {
      return loop.schedule(task, delayNanos);
    }

    @Override
    public Executor dispatcher() {
      return held::add;
    }

    @Override
    public boolean onDispatcher() {
      return false;
    }

    @Override
    public void shutdown() {}

    @Override
    public void awaitTermination() {}

    void runHeld() {
      List<Runnable> now = List.copyOf(held);
      held.clear();
      now.forEach(Runnable::run);
    }
  }

  @Test
  void aTransferAskedWhileClosingIsRefusedOnTheDispatcher() {
    ManualScheduler loop = new ManualScheduler();
    HeldEvents events = new HeldEvents(loop);
    ElectorRuntime rt = new ElectorRuntime(CONFIG,
        new ElectionMachine(ProtocolConfig.from(CONFIG), new SplittableRandom(1)), new SilentStore(),
        new SharedThreads(loop, events), "t");
    rt.start();
    loop.runFor(0);

    rt.closeAsync();
    CompletableFuture<LeaderInfo> transfer = rt.transferTo("other").toCompletableFuture();
    loop.runFor(0);
    assertFalse(transfer.isDone(), "the loop refused it, but the answer waits for the dispatcher");

    events.runHeld();
    assertTrue(transfer.isCompletedExceptionally());
    ExecutionException refused = assertThrows(ExecutionException.class, transfer::get);
    assertEquals("transfer refused: the elector is closed", refused.getCause().getMessage());
  }
}
