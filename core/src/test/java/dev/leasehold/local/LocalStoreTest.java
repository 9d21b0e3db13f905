package dev.leasehold.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.etcd.protocol.EtcdCommand;
import dev.leasehold.etcd.protocol.EtcdInput;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.StoreCall;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The store's etcd semantics, through the port the elector uses, on a clock the test moves. */
class LocalStoreTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;
  private static final String KEY = "/k";

  private final AtomicLong clock = new AtomicLong(-5 * S); // monotonic values may be negative
  private final LocalStore store = new LocalStore(clock::get, null);
  private final LocalPort a = new LocalPort(store, KEY, "a");
  private final LocalPort b = new LocalPort(store, KEY, "b");
  private long op;

  @AfterEach
  void close() {
    store.close();
  }

  private Input call(LocalPort port, StoreCall call) throws Exception {
    return port.call(call).toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  private EtcdInput.LeaseGranted grant(LocalPort port, long ttl) throws Exception {
    return (EtcdInput.LeaseGranted) call(port, new EtcdCommand.GrantLease(++op, ttl));
  }

  private Input campaign(LocalPort port, long lease) throws Exception {
    return call(port, new EtcdCommand.Campaign(++op, lease));
  }

  private EtcdInput.PollResult poll(LocalPort port) throws Exception {
    return (EtcdInput.PollResult) call(port, new EtcdCommand.Poll(++op));
  }

  @Test
  void aLeaseExpiresExactlyItsTtlAfterItsLastKeepAliveAndTakesItsKey() throws Exception {
    EtcdInput.LeaseGranted lease = grant(a, 2);
    assertEquals(2, lease.ttlSeconds());
    long token = ((EtcdInput.CampaignWon) campaign(a, lease.leaseId())).createRevision();
    clock.addAndGet(S);
    Input ack = call(a, new EtcdCommand.KeepAlive(++op, lease.leaseId()));
    assertEquals(new EtcdInput.KeepAliveAcked(op, 2, LocalStore.RAFT_TERM), ack);

    clock.addAndGet(2 * S - 1);
    assertEquals(token, poll(b).key().createRevision(), "alive 1 ns before its TTL is up");
    clock.addAndGet(1);
    EtcdInput.PollResult gone = poll(b);
    assertNull(gone.key(), "expired exactly TTL after the keep-alive, its key with it");
    assertEquals(token + 1, gone.revision(), "the deletion took a revision");
    assertEquals(
        new EtcdInput.KeepAliveFailed(op + 1, true, "requested lease not found"),
        call(a, new EtcdCommand.KeepAlive(++op, lease.leaseId())),
        "an expired lease is not renewed");
    assertEquals(new EtcdInput.LeaseProbed(op + 1, true, false),
        call(a, new EtcdCommand.ProbeLease(++op, lease.leaseId())));
  }

  @Test
  void theCampaignCreatesTheKeyOnlyWhenAbsentAndTokensStrictlyIncrease() throws Exception {
    long la = grant(a, 5).leaseId();
    long lb = grant(b, 5).leaseId();
    long first = ((EtcdInput.CampaignWon) campaign(a, la)).createRevision();
    EtcdInput.CampaignLost lost = (EtcdInput.CampaignLost) campaign(b, lb);
    assertEquals("a", lost.holder().holderId());
    assertEquals(la, lost.holder().leaseId());
    assertEquals(first, lost.holder().createRevision());

    assertTrue(store.faults().expireLease(la));
    long second = ((EtcdInput.CampaignWon) campaign(b, lb)).createRevision();
    assertTrue(second > first, second + " > " + first);
    EtcdInput.ConfirmRead read = (EtcdInput.ConfirmRead) call(b, new EtcdCommand.ConfirmRead(++op));
    assertEquals(lb, read.key().leaseId());
    assertEquals(LocalStore.RAFT_TERM, read.raftTerm());
    store.faults().deleteKey(KEY);
    assertInstanceOf(EtcdInput.CampaignFailed.class, campaign(a, la), "a gone lease fails the Txn");
  }

  @Test
  void theSweeperExpiresALeaseOnTimeWhenNobodyCalls() throws Exception {
    LocalStore real = LocalStore.create();
    try {
      LocalPort holder = new LocalPort(real, KEY, "h");
      LocalPort watcher = new LocalPort(real, KEY, "w");
      long sent = System.nanoTime();
      Input granted = call(holder, new EtcdCommand.GrantLease(1, 1));
      long lease = ((EtcdInput.LeaseGranted) granted).leaseId();
      call(holder, new EtcdCommand.Campaign(2, lease));
      BlockingQueue<Input> events = new LinkedBlockingQueue<>();
      watcher.send(new EtcdCommand.Watch(7, 1), events::add);
      assertInstanceOf(EtcdInput.WatchPut.class, events.poll(5, TimeUnit.SECONDS));
      Input deleted = events.poll(5, TimeUnit.SECONDS);
      long after = System.nanoTime() - sent;
      assertInstanceOf(EtcdInput.WatchDelete.class, deleted);
      assertTrue(after >= S, "never before the TTL: " + after / MS + " ms");
      assertEquals(0, real.leaseCount());
    } finally {
      real.close();
    }
  }

  @Test
  void aWatchReplaysTheKeysChangesFromItsRevisionThenReportsNewOnes() throws Exception {
    long lease = grant(a, 5).leaseId();
    long created = ((EtcdInput.CampaignWon) campaign(a, lease)).createRevision();
    BlockingQueue<Input> events = new LinkedBlockingQueue<>();
    b.send(new EtcdCommand.Watch(9, created), events::add);
    EtcdInput.WatchPut put = (EtcdInput.WatchPut) events.poll(5, TimeUnit.SECONDS);
    assertEquals(9, put.watchId());
    assertEquals(created, put.revision());
    assertEquals("a", put.key().holderId());

    store.faults().deleteKey(KEY);
    assertEquals(new EtcdInput.WatchDelete(9, created + 1), events.poll(5, TimeUnit.SECONDS));
    b.send(new EtcdCommand.CancelWatch(9), events::add);
    campaign(a, lease);
    poll(a); // the store thread has done everything asked before it
    assertNull(events.poll(50, TimeUnit.MILLISECONDS), "a cancelled watch reports nothing");
  }

  @Test
  void aWatchFromARevisionAlreadyForgottenFailsAsCompacted() throws Exception {
    long lease = grant(a, 5).leaseId();
    for (int i = 0; i < StoreState.HISTORY; i++) {
      campaign(a, lease);
      store.faults().deleteKey(KEY);
    }
    BlockingQueue<Input> events = new LinkedBlockingQueue<>();
    b.send(new EtcdCommand.Watch(3, 1), events::add);
    EtcdInput.WatchFailed failed = (EtcdInput.WatchFailed) events.poll(5, TimeUnit.SECONDS);
    assertTrue(failed.compacted(), failed.toString());
  }

  @Test
  void whileUnavailableEveryRequestFailsAtOnceWithTheReasonAndWatchesEnd() throws Exception {
    long lease = grant(a, 5).leaseId();
    BlockingQueue<Input> events = new LinkedBlockingQueue<>();
    b.send(new EtcdCommand.Watch(4, 1), events::add);
    poll(b);

    store.faults().makeUnavailable();

    String down = LocalFaults.UNAVAILABLE;
    assertEquals(new EtcdInput.WatchFailed(4, false, down), events.poll(5, TimeUnit.SECONDS));
    assertEquals(new EtcdInput.PollFailed(op + 1, down), call(a, new EtcdCommand.Poll(++op)));
    assertEquals(new EtcdInput.KeepAliveFailed(op + 1, false, down),
        call(a, new EtcdCommand.KeepAlive(++op, lease)));
    assertInstanceOf(EtcdInput.CampaignFailed.class, campaign(a, lease));
    ExecutionException release =
        assertThrows(ExecutionException.class,
            () -> a.release(lease).toCompletableFuture().get(5, TimeUnit.SECONDS));
    assertEquals(down, a.describe(release));
    b.send(new EtcdCommand.Watch(5, 1), events::add);
    assertEquals(new EtcdInput.WatchFailed(5, false, down), events.poll(5, TimeUnit.SECONDS));

    store.faults().makeAvailable();
    assertNotNull(((EtcdInput.CampaignWon) campaign(a, lease)));
    a.release(lease).toCompletableFuture().get(5, TimeUnit.SECONDS);
    a.release(lease).toCompletableFuture().get(5, TimeUnit.SECONDS); // already gone: still released
    assertEquals(0, store.leaseCount());
    assertEquals(0, store.keyCount());
  }

  @Test
  void aClosedStoreFailsEveryRequestAndRefusesFaults() throws Exception {
    store.close();
    assertEquals(
        new EtcdInput.GrantFailed(op + 1, "local store closed"),
        call(a, new EtcdCommand.GrantLease(++op, 1)));
    assertThrows(IllegalStateException.class, () -> store.faults().deleteKey(KEY));
    assertFalse(store.leaderOf(KEY).isPresent());
    store.close(); // idempotent
  }
}
