package dev.leasehold.local;

import dev.leasehold.LeaderElector;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

class LocalCloseTest {
  private static final Duration SOON = Duration.ofSeconds(5);

  @Test
  void closingTheLeaderReportsClosedAndAnotherTakesOverAndNothingIsLeftAfterAll() throws Exception {
    LocalStore store = LocalStore.create();
    Electors group = new Electors(store).start(4, b -> b);
    LeaderElector leader = group.awaitLeader(0, SOON);
    Leadership term = leader.leadership().orElseThrow();

    leader.close();

    LeadershipEvent closed = term.whenLost().toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertEquals(Cause.CLOSED, closed.cause());
    assertEquals(ElectorState.MASTER, closed.from());
    assertEquals(ElectorState.STOPPED, closed.to());
    assertFalse(store.hasLease(term.leaseId()), "close released the lease before returning");
    assertEquals(ElectorState.STOPPED, leader.state());
    leader.close(); // idempotent
    group.awaitLeader(term.fencingToken(), SOON);

    group.close();
    assertEquals(0, store.leaseCount(), "no lease left, standby leases included");
    assertEquals(0, store.keyCount());
    group.assertNoOverlap();
    store.close();
  }

  @Test
  void aLeaseGrantInFlightAtCloseIsReleasedWhenItArrives() throws Exception {
    ExecutorService storeThread = Executors.newSingleThreadExecutor();
    List<LeaderElector> elector = new ArrayList<>();
    // Everything the store is asked while the elector is a CANDIDATE (its lease grant) waits.
    Gate gate = new Gate(storeThread, () -> !elector.isEmpty()
        && elector.get(0).state() == ElectorState.CANDIDATE);
    LocalStore store = new LocalStore(System::nanoTime, gate);
    LeaderElector e =
        LocalLeaderElector.builder()
            .store(store)
            .electionKey(Electors.KEY)
            .leaseTtl(Duration.ofSeconds(2))
            .rpcTimeout(Duration.ofMillis(600))
            .build();
    elector.add(e);
    try {
      e.start();
      Electors.waiting(SOON).until(() -> gate.heldCount() > 0);
      assertEquals(0, store.leaseCount(), "the grant has not reached the store yet");

      var closing = e.closeAsync();
      Electors.waiting(SOON).until(() -> e.state() == ElectorState.STOPPED);
      gate.open();
      closing.toCompletableFuture().get(5, TimeUnit.SECONDS);

      assertTrue(gate.ranAfterOpen() > 0, "the held grant was applied after the elector stopped");
      assertEquals(0, store.leaseCount(), "the late grant's lease was released");
      assertEquals(0, store.keyCount());
    } finally {
      e.close();
      store.close();
      storeThread.shutdown();
    }
  }

  /** Gate holds the store's work while {@code hold} is true, until {@link #open()}. */
  private static final class Gate implements Executor {
    private final Executor thread;
    private final BooleanSupplier hold;
    private final List<Runnable> held = new ArrayList<>();
    private boolean open;
    private int ranAfterOpen;

    Gate(Executor thread, BooleanSupplier hold) {
      this.thread = thread;
      this.hold = hold;
    }

    @Override
    public synchronized void execute(Runnable task) {
      if (open) {
        ranAfterOpen++;
        thread.execute(task);
      } else if (hold.getAsBoolean() || !held.isEmpty()) {
        held.add(task); // keep the order: nothing overtakes a held task
      } else {
        thread.execute(task);
      }
    }

    synchronized int heldCount() {
      return held.size();
    }

    synchronized int ranAfterOpen() {
      return ranAfterOpen;
    }

    synchronized void open() {
      open = true;
      ranAfterOpen += held.size();
      held.forEach(thread::execute);
      held.clear();
    }
  }
}
