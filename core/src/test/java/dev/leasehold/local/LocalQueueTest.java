package dev.leasehold.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.Leadership;
import dev.leasehold.etcd.protocol.EtcdCommand;
import dev.leasehold.etcd.protocol.EtcdInput;
import dev.leasehold.etcd.protocol.KeyRecord;
import dev.leasehold.Participant;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.StoreCall;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The queue and the handover (PROTOCOL.md §4.5) at store level, through the port the elector
 * uses: participant keys on standby leases, the read of K with its queue, the handover
 * transaction, and the watch events of participant keys, with etcd's semantics.
 */
class LocalQueueTest {
  private static final long S = 1_000_000_000L;
  private static final String KEY = "/k";

  private final AtomicLong clock = new AtomicLong(-7 * S);
  private final LocalStore store = new LocalStore(clock::get, null);
  private final LocalPort a = new LocalPort(store, KEY, "a");
  private final LocalPort b = new LocalPort(store, KEY, "b");
  private final LocalPort c = new LocalPort(store, KEY, "c");
  private long op;

  @AfterEach
  void close() {
    store.close();
  }

  private Input call(LocalPort port, StoreCall call) throws Exception {
    return port.call(call).toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  private long grant(LocalPort port, long ttl) throws Exception {
    return ((EtcdInput.LeaseGranted) call(port, new EtcdCommand.GrantLease(++op, ttl))).leaseId();
  }

  private long campaign(LocalPort port, long lease) throws Exception {
    return ((EtcdInput.CampaignWon) call(port, new EtcdCommand.Campaign(++op, lease))).createRevision();
  }

  private Input enlist(LocalPort port, long lease) throws Exception {
    return call(port, new EtcdCommand.Enlist(++op, lease));
  }

  private long enlisted(LocalPort port, long lease) throws Exception {
    return ((EtcdInput.Enlisted) enlist(port, lease)).revision();
  }

  private EtcdInput.PollResult read(LocalPort port) throws Exception {
    return (EtcdInput.PollResult) call(port, new EtcdCommand.Poll(++op, true));
  }

  private Input handover(LocalPort port, long token, long lease, Participant successor) throws Exception {
    return call(port, new EtcdCommand.Handover(++op, token, lease, successor));
  }

  private static Leadership term(long token) {
    return (Leadership) Proxy.newProxyInstance(
        Leadership.class.getClassLoader(),
        new Class<?>[] {Leadership.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "electionKey" -> KEY;
          case "fencingToken" -> token;
          case "toString" -> "term " + token;
          default -> throw new UnsupportedOperationException(method.getName());
        });
  }

  @Test
  void enlistingPutsTheParticipantKeyOnTheLeaseAndTheReadReturnsKeyAndQueueAtOneRevision()
      throws Exception {
    long la = grant(a, 5);
    long lb = grant(b, 5);
    long lc = grant(c, 5);
    long ra = enlisted(a, la);
    long rb = enlisted(b, lb);
    long token = campaign(a, la);
    long rc = enlisted(c, lc);
    assertTrue(ra < rb && rb < token && token < rc, ra + " < " + rb + " < " + token + " < " + rc);

    EtcdInput.PollResult r = read(c);
    assertEquals(rc, r.revision(), "K and the queue as of one revision");
    assertEquals(new KeyRecord("a", la, token, token), r.key());
    assertEquals(
        List.of(new Participant("a", la, ra, ra), new Participant("b", lb, rb, rb),
            new Participant("c", lc, rc, rc)),
        r.participants(),
        "the queue in mod revision order");
    assertEquals(4, store.keyCount(), "K and three participant keys");
    assertNull(((EtcdInput.PollResult) call(c, new EtcdCommand.Poll(++op))).participants(),
        "a read of K alone carries no queue");

    long again = enlisted(b, lb);
    assertEquals(
        List.of(new Participant("a", la, ra, ra), new Participant("c", lc, rc, rc),
            new Participant("b", lb, rb, again)),
        read(a).participants(),
        "enlisting again keeps the create revision and goes to the tail");
  }

  @Test
  void enlistingFailsLikeEtcdsPutWhenTheLeaseIsGoneOrTheStoreIsDown() throws Exception {
    long la = grant(a, 2);
    clock.addAndGet(2 * S);
    assertEquals(new EtcdInput.EnlistFailed(op + 1, "requested lease not found"), enlist(a, la));
    assertEquals(0, store.keyCount());

    long lb = grant(b, 5);
    store.faults().makeUnavailable();
    assertEquals(new EtcdInput.EnlistFailed(op + 1, LocalFaults.UNAVAILABLE), enlist(b, lb));
    assertInstanceOf(EtcdInput.HandoverFailed.class,
        handover(b, 1, lb, new Participant("a", la, 1, 1)));
    assertInstanceOf(EtcdInput.PollFailed.class, call(b, new EtcdCommand.Poll(++op, true)));
    store.faults().makeAvailable();
    assertInstanceOf(EtcdInput.Enlisted.class, enlist(b, lb));
  }

  @Test
  void aLeaseThatEndsDeletesTheKeyAndTheParticipantKeyInOneRevision() throws Exception {
    long la = grant(a, 3);
    long lb = grant(b, 5);
    enlisted(a, la);
    enlisted(b, lb);
    long token = campaign(a, la);
    BlockingQueue<Input> events = new LinkedBlockingQueue<>();
    c.send(new EtcdCommand.Watch(11, token + 1, true), events::add);
    read(c); // the watch is registered

    clock.addAndGet(3 * S);
    EtcdInput.PollResult r = read(c);
    assertNull(r.key());
    assertEquals(token + 1, r.revision(), "one revision for both deletions");
    assertEquals(List.of("b"), r.participants().stream().map(Participant::candidateId).toList());
    assertEquals(new EtcdInput.WatchDelete(11, token + 1), events.poll(5, TimeUnit.SECONDS),
        "K first, in key order as etcd deletes a lease's keys");
    assertEquals(new EtcdInput.WatchWithdrawn(11, la, token + 1), events.poll(5, TimeUnit.SECONDS));

    assertTrue(store.faults().expireLease(lb));
    assertEquals(new EtcdInput.WatchWithdrawn(11, lb, token + 2), events.poll(5, TimeUnit.SECONDS));
    assertEquals(0, store.keyCount());
  }

  @Test
  void aHandoverGivesTheKeyToTheSuccessorAndSendsTheResignerToTheTailInOneRevision()
      throws Exception {
    long la = grant(a, 5);
    long lb = grant(b, 5);
    long ra = enlisted(a, la);
    long rb = enlisted(b, lb);
    long token = campaign(a, la);
    BlockingQueue<Input> events = new LinkedBlockingQueue<>();
    c.send(new EtcdCommand.Watch(3, token + 1, true), events::add);
    Participant successor = read(a).participants().get(1);
    assertEquals(new Participant("b", lb, rb, rb), successor);

    EtcdInput.HandedOver done = (EtcdInput.HandedOver) handover(a, token, la, successor);
    long rev = done.revision();
    assertEquals(token + 1, rev, "one revision for the transaction");
    EtcdInput.PollResult r = read(c);
    assertEquals(rev, r.revision());
    assertEquals(new KeyRecord("b", lb, token, rev), r.key(), "the create revision stays");
    assertEquals(rev, r.key().token(), "the successor's token is the handover's revision");
    assertEquals(List.of(successor, new Participant("a", la, ra, rev)), r.participants());
    assertEquals(new EtcdInput.WatchPut(3, r.key(), rev), events.poll(5, TimeUnit.SECONDS));
    assertEquals(new EtcdInput.WatchEnlisted(3, new Participant("a", la, ra, rev), rev),
        events.poll(5, TimeUnit.SECONDS));

    assertFalse(store.isCurrentTerm(term(token)), "the resigner's term is over");
    assertFalse(store.runFenced(term(token), () -> { throw new AssertionError("ran"); }));
    assertTrue(store.isCurrentTerm(term(rev)));
    assertEquals(rev, store.leaderOf(KEY).orElseThrow().fencingToken());
    assertEquals(lb, store.leaderOf(KEY).orElseThrow().leaseId());

    assertTrue(store.faults().expireLease(la), "the resigner's lease now holds only its participant key");
    assertEquals(new KeyRecord("b", lb, token, rev), read(b).key(), "K moved to the successor's lease");
    assertTrue(store.faults().expireLease(lb));
    assertNull(read(c).key(), "and goes with it");
  }

  @Test
  void aHandoverIsRefusedWhenTheTermOrTheSuccessorIsGoneAndFailsWhenALeaseIsGone()
      throws Exception {
    long la = grant(a, 5);
    long lb = grant(b, 5);
    enlisted(a, la);
    enlisted(b, lb);
    long token = campaign(a, la);
    Participant successor = read(a).participants().get(1);

    KeyRecord k = new KeyRecord("a", la, token, token);
    assertEquals(new EtcdInput.HandoverRefused(op + 1, k, token),
        handover(a, token - 1, la, successor), "a stale token");
    Participant rejoined = new Participant("b", lb, successor.createRevision() + 1, successor.modRevision() + 1);
    assertEquals(new EtcdInput.HandoverRefused(op + 1, k, token),
        handover(a, token, la, rejoined), "another incarnation of the successor's key");

    assertTrue(store.faults().expireLease(lb));
    assertEquals(new EtcdInput.HandoverRefused(op + 1, k, token + 1),
        handover(a, token, la, successor), "the successor left the queue with its lease");

    long lc = grant(c, 5);
    long rc = enlisted(c, lc);
    Participant third = new Participant("c", lc, rc, rc);
    assertTrue(store.faults().deleteKey(Participant.keyOf(KEY, la)), "the resigner's own key, by hand");
    long rev = ((EtcdInput.HandedOver) handover(a, token, la, third)).revision();
    assertEquals(rc + 2, rev);
    assertEquals(List.of(third, new Participant("a", la, rev, rev)), read(c).participants(),
        "the resigner's participant key was put again, as a new key");

    assertTrue(store.faults().deleteKey(KEY));
    assertEquals(new EtcdInput.HandoverRefused(op + 1, null, rev + 1),
        handover(c, rev, lc, new Participant("a", la, rev, rev)), "no key: refused, reading it absent");

    long ld = grant(c, 5);
    long token2 = campaign(c, ld);
    Participant pa = read(c).participants().get(1);
    assertEquals("a", pa.candidateId());
    assertEquals(new EtcdInput.HandoverFailed(op + 1, "requested lease not found"),
        handover(c, token2, 999, pa), "the compare holds, but the Then branch's lease is missing");
    assertEquals(new KeyRecord("c", ld, token2, token2), read(c).key(), "nothing applied");
    assertTrue(store.faults().expireLease(la));
    assertInstanceOf(EtcdInput.HandoverRefused.class, handover(c, token2, ld, pa),
        "a successor whose lease ended left the queue with it");
  }

  @Test
  void aWatchReplaysKeyAndParticipantChangesInOrderFromItsRevision() throws Exception {
    long la = grant(a, 5);
    long lb = grant(b, 5);
    long ra = enlisted(a, la);
    long token = campaign(a, la);
    long rb = enlisted(b, lb);
    long rev = ((EtcdInput.HandedOver) handover(a, token, la, new Participant("b", lb, rb, rb))).revision();
    assertTrue(store.faults().expireLease(la));

    BlockingQueue<Input> events = new LinkedBlockingQueue<>();
    c.send(new EtcdCommand.Watch(5, ra, true), events::add);
    Participant pa = new Participant("a", la, ra, ra);
    KeyRecord k = new KeyRecord("a", la, token, token);
    assertEquals(new EtcdInput.WatchEnlisted(5, pa, ra), events.poll(5, TimeUnit.SECONDS));
    assertEquals(new EtcdInput.WatchPut(5, k, token), events.poll(5, TimeUnit.SECONDS));
    assertEquals(new EtcdInput.WatchEnlisted(5, new Participant("b", lb, rb, rb), rb), events.poll(5, TimeUnit.SECONDS));
    assertEquals(new EtcdInput.WatchPut(5, new KeyRecord("b", lb, token, rev), rev), events.poll(5, TimeUnit.SECONDS));
    assertEquals(new EtcdInput.WatchEnlisted(5, new Participant("a", la, ra, rev), rev), events.poll(5, TimeUnit.SECONDS));
    assertEquals(new EtcdInput.WatchWithdrawn(5, la, rev + 1), events.poll(5, TimeUnit.SECONDS));
    read(c);
    assertNull(events.poll(50, TimeUnit.MILLISECONDS), "nothing more");

    // Keys of another election, and other keys under the prefix, are not this watch's.
    LocalPort other = new LocalPort(store, KEY + "x", "o");
    long lo = grant(other, 5);
    enlisted(other, lo);
    campaign(other, lo);
    store.fault(s -> s.put(Participant.prefix(KEY) + "notes", "n", lo));
    read(c);
    assertNull(events.poll(50, TimeUnit.MILLISECONDS), "no event for another election's keys");
  }

  @Test
  void deletedParticipantKeysAreForgottenBeyondABoundLikeACompaction() throws Exception {
    long first = store.fault(StoreState::revision) + 1;
    for (int i = 0; i <= StoreState.DEAD_HISTORIES; i++) {
      long lease = store.fault(s -> s.grant(5, clock.get()).id);
      store.fault(s -> s.put(Participant.keyOf(KEY, lease), "p", lease));
      assertTrue(store.faults().expireLease(lease));
    }
    BlockingQueue<Input> events = new LinkedBlockingQueue<>();
    c.send(new EtcdCommand.Watch(8, first, true), events::add);
    EtcdInput.WatchFailed failed = (EtcdInput.WatchFailed) events.poll(5, TimeUnit.SECONDS);
    assertTrue(failed.compacted(), failed.toString());
    c.send(new EtcdCommand.Watch(9, first + 2, true), events::add);
    assertEquals(new EtcdInput.WatchEnlisted(9, new Participant("p", 2, first + 2, first + 2), first + 2),
        events.poll(5, TimeUnit.SECONDS), "the next one is still there");
  }

  @Test
  void rankCountsTheParticipantKeysNamedBeforeItsOwn() throws Exception {
    long la = grant(a, 5);
    long lb = grant(b, 5);
    long lc = grant(c, 5);
    enlisted(c, lc);
    enlisted(a, la);
    enlisted(b, lb);
    // Lease ids are named in hex, so the count follows their unsigned order, not the join order.
    List<Long> byName = new java.util.ArrayList<>(List.of(la, lb, lc));
    byName.sort(Long::compareUnsigned);
    for (int i = 0; i < 3; i++) {
      EtcdInput.Ranked r = (EtcdInput.Ranked) call(a, new EtcdCommand.Rank(++op, byName.get(i)));
      assertEquals(i, r.ahead());
    }
    assertEquals(3, ((EtcdInput.Ranked) call(a, new EtcdCommand.Rank(++op, 0))).ahead());
  }
}
