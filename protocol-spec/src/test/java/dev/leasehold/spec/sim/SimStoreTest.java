package dev.leasehold.spec.sim;

import dev.leasehold.test.engine.EventQueue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.etcd.protocol.EtcdInput;
import dev.leasehold.etcd.protocol.KeyRecord;
import dev.leasehold.Participant;
import dev.leasehold.runtime.Input;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The simulated etcd's queue and handover (PROTOCOL.md §4.5), which the machine reaches only
 * through {@link SimEtcd}: participant keys on leases, the handover's compare, a lease's end
 * deleting K and its participant key in one revision, and what a watch of K reports of them.
 */
class SimStoreTest {
  private static final long S = Scenario.S;

  private final Engine engine = new Engine(1, Simulation.all(), 0);
  private final SimNetwork net = new SimNetwork(engine, new Scenario(1, Mutation.NONE));
  private final SimStore store = new SimStore(net, 100, 0x10000);

  SimStoreTest() {
    net.store = store;
    engine.quiet = true;
  }

  private long grant() {
    return store.grant(5, "owner", engine.now).id;
  }

  /** drain runs the simulation's queued events (watch deliveries) to the end. */
  private void drain() {
    EventQueue.Ev e;
    while ((e = engine.next()) != null) {
      engine.now = e.time();
      e.run();
    }
  }

  @Test
  void enlistingPutsParticipantKeysThatAReadReturnsInModRevisionOrder() {
    long la = grant();
    long lb = grant();
    long ra = store.enlist("a", la, 0);
    long rb = store.enlist("b", lb, 0);
    assertEquals(List.of(new Participant("a", la, ra, ra), new Participant("b", lb, rb, rb)), store.queued());
    long again = store.enlist("a", la, 0);
    assertEquals(List.of(new Participant("b", lb, rb, rb), new Participant("a", la, ra, again)), store.queued(),
        "enlisting again keeps the create revision and goes to the tail");
    assertEquals(-1, store.enlist("c", 0x999, 0), "a put on a missing lease fails");
    assertEquals(-1, store.enlist("a", la, 5 * S), "and on an expired one the sweep has not yet revoked");
  }

  @Test
  void aHandoverMovesKToTheSuccessorAndTheResignerToTheTailInOneRevision() {
    long la = grant();
    long lb = grant();
    long ra = store.enlist("a", la, 0);
    long rb = store.enlist("b", lb, 0);
    SimStore.TxnOutcome won = store.campaign("a", la, 0);
    long token = won.revision();
    Participant succ = store.queued().get(1);

    KeyRecord k = store.key;
    assertEquals(new SimStore.HandoverOutcome(false, false, k, token), store.handover("a", la, token - 1, succ, 0),
        "a stale token is refused");
    Participant other = new Participant("b", lb, rb + 1, rb + 1);
    assertEquals(new SimStore.HandoverOutcome(false, false, k, token), store.handover("a", la, token, other, 0),
        "so is another incarnation of the successor's key");
    assertEquals(new SimStore.HandoverOutcome(false, true, null, token), store.handover("a", la, token, succ, 5 * S),
        "the Then branch's expired lease fails the transaction");

    SimStore.HandoverOutcome done = store.handover("a", la, token, succ, 0);
    long rev = token + 1;
    assertTrue(done.committed());
    assertEquals(rev, done.revision());
    assertEquals(new KeyRecord("b", lb, token, rev), store.key, "create revision kept, mod revision = the handover's");
    assertEquals(List.of(succ, new Participant("a", la, ra, rev)), store.queued());
    assertFalse(store.handover("a", la, token, succ, 0).committed(), "a second copy of the request is refused");
  }

  @Test
  void aLeaseThatEndsDeletesKAndItsParticipantKeyInOneRevisionAndAWatchSeesBothInKeyOrder() {
    long la = grant();
    long lb = grant();
    long first = store.enlist("a", la, 0);
    store.enlist("b", lb, 0);
    long token = store.campaign("a", la, 0).revision();
    List<Input> seen = new ArrayList<>();
    net.watch(0, S, 7, first, true, seen::add);
    drain();

    assertTrue(store.revoke(la, "expired"));
    assertNull(store.key);
    assertEquals(token + 1, store.revision, "one revision for both keys");
    assertEquals(List.of(lb), store.queued().stream().map(Participant::leaseId).toList());
    SimStore.HandoverOutcome refused = store.handover("b", lb, token, new Participant("a", la, first, first), 0);
    assertEquals(new SimStore.HandoverOutcome(false, false, null, token + 1), refused);
    assertTrue(store.revoke(lb, "revoked by b"));
    assertTrue(store.queue.isEmpty());
    drain();

    Participant pa = new Participant("a", la, first, first);
    Participant pb = new Participant("b", lb, first + 1, first + 1);
    assertEquals(List.of(
        new EtcdInput.WatchEnlisted(7, pa, first),
        new EtcdInput.WatchEnlisted(7, pb, first + 1),
        new EtcdInput.WatchPut(7, new KeyRecord("a", la, token, token), token),
        new EtcdInput.WatchDelete(7, token + 1),
        new EtcdInput.WatchWithdrawn(7, la, token + 1),
        new EtcdInput.WatchWithdrawn(7, lb, token + 2)), seen);
  }

  @Test
  void anIsolatedLeaderKeepsTheQueueItHadForStaleReads() {
    long la = grant();
    long ra = store.enlist("a", la, 0);
    store.isolate();
    store.hasLeader = true;
    store.revoke(la, "expired");
    assertTrue(store.queued().isEmpty());
    assertEquals(List.of(new Participant("a", la, ra, ra)), store.isoQueue);
  }

  @Test
  void anOperatorDeletingAParticipantKeyLeavesTheLeaseAndRefusesAHandoverToIt() {
    long la = grant();
    long lb = grant();
    store.enlist("a", la, 0);
    long rb = store.enlist("b", lb, 0);
    long token = store.campaign("a", la, 0).revision();
    assertTrue(store.adminDeleteParticipant(lb));
    assertFalse(store.adminDeleteParticipant(lb));
    assertTrue(store.leases.containsKey(lb), "the lease stays");
    assertEquals(token + 1, store.revision);
    SimStore.HandoverOutcome o = store.handover("a", la, token, new Participant("b", lb, rb, rb), 0);
    assertFalse(o.committed() || o.leaseNotFound(), "the successor left the queue: refused");
  }
}
