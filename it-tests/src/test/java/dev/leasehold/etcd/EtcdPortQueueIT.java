package dev.leasehold.etcd;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.Leadership;
import dev.leasehold.it.EtcdCluster;
import dev.leasehold.it.EtcdClusterExtension;
import dev.leasehold.it.chaos.History.Incarnation;
import dev.leasehold.it.chaos.StoreHistory;
import dev.leasehold.etcd.protocol.EtcdCommand;
import dev.leasehold.etcd.protocol.EtcdInput;
import dev.leasehold.etcd.protocol.KeyRecord;
import dev.leasehold.Participant;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.StoreCall;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * EtcdPortQueueIT drives the etcd adapter ({@link EtcdPort}) directly against a real etcd:
 * the queue (Enlist, Poll with participants), the handover transaction, the watch of the key and
 * the participant prefix under one watch id (PROTOCOL.md §4.5), and fencing by the key's mod
 * revision ({@link EtcdFencing}). No machine runs: each test sends the commands the machine
 * would, and checks etcd's state with a client of its own.
 */
class EtcdPortQueueIT {
  @RegisterExtension static final EtcdClusterExtension ETCD = EtcdClusterExtension.members(1);

  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final long TTL = 30;

  private final AtomicLong ops = new AtomicLong();
  private final List<EtcdPort> stores = new ArrayList<>();
  private Client outside;
  private String key;

  @BeforeEach
  void setUp() {
    outside = ETCD.cluster().clientBuilder().build();
    key = "/it/queue/" + UUID.randomUUID();
  }

  @AfterEach
  void tearDown() {
    stores.forEach(EtcdPort::close);
    outside.close();
  }

  @Test
  void enlistPutsTheParticipantKeyOnTheLeaseAndItGoesWithTheLease() throws Exception {
    EtcdPort a = store("a");
    long la = grant(a);
    long revision = enlist(a, la);

    KeyValue p = get(Participant.keyOf(key, la)).orElseThrow();
    assertEquals("a", text(p.getValue()));
    assertEquals(la, p.getLease());
    assertEquals(revision, p.getModRevision());
    assertEquals(revision, p.getCreateRevision());

    a.release(la).toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertTrue(get(Participant.keyOf(key, la)).isEmpty(), "the participant key went with its lease");
  }

  @Test
  void aLostEnlistingCampaignQueuesTheCandidateAWonOneEnlistsNobody() throws Exception {
    EtcdPort a = store("a");
    long holder = grant(a);
    EtcdInput won = (EtcdInput) call(a, new EtcdCommand.Campaign(op(), holder, true, 0));
    assertTrue(won instanceof EtcdInput.CampaignWon, "the first enlisting campaign wins: " + won);
    assertTrue(get(Participant.keyOf(key, holder)).isEmpty(), "a won campaign puts no participant key");

    for (int i = 0; i < 3; i++) {
      long l = grant(a);
      EtcdInput.CampaignLost lost =
          (EtcdInput.CampaignLost) call(a, new EtcdCommand.Campaign(op(), l, true, 2_000_000_000L));
      assertTrue(lost.enlisted(), "the Else branch enlisted it");
      assertEquals("a", lost.holder().holderId());
      assertEquals(holder, lost.holder().leaseId());
      KeyValue p = get(Participant.keyOf(key, l)).orElseThrow();
      assertEquals(l, p.getLease(), "its participant key rides on the campaign's lease");
      assertEquals(lost.revision(), p.getModRevision(), "put in the campaign's own revision");
    }
    // A plain campaign still only reads.
    long plain = grant(a);
    EtcdInput.CampaignLost lost = (EtcdInput.CampaignLost) call(a, new EtcdCommand.Campaign(op(), plain));
    assertFalse(lost.enlisted(), "a plain campaign enlists nobody: " + lost);
    assertTrue(get(Participant.keyOf(key, plain)).isEmpty(), "no participant key for a plain campaign");
  }

  @Test
  void rankCountsTheParticipantKeysNamedBeforeItsOwnFromEtcdsIndex() throws Exception {
    EtcdPort a = store("a");
    List<Long> leases = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      long l = grant(a);
      enlist(a, l);
      leases.add(l);
    }
    leases.sort(Long::compareUnsigned);
    for (int i = 0; i < leases.size(); i++) {
      EtcdInput.Ranked r = (EtcdInput.Ranked) call(a, new EtcdCommand.Rank(op(), leases.get(i)));
      assertEquals(i, r.ahead(), "rank of the " + i + "th key by name");
    }
    EtcdInput.Ranked all = (EtcdInput.Ranked) call(a, new EtcdCommand.Rank(op(), 0));
    assertEquals(4, all.ahead(), "without a key of its own, the whole queue is ahead");
    // A participant whose lease goes leaves the count at once.
    outside.getLeaseClient().revoke(leases.get(0)).get(5, TimeUnit.SECONDS);
    EtcdInput.Ranked after = (EtcdInput.Ranked) call(a, new EtcdCommand.Rank(op(), leases.get(3)));
    assertEquals(2, after.ahead());
  }

  @Test
  void pollReadsTheQueueInModRevisionOrderAndReEnlistingMovesToTheTail() throws Exception {
    EtcdPort a = store("a");
    EtcdPort b = store("b");
    EtcdPort c = store("c");
    long la = grant(a);
    long lb = grant(b);
    long lc = grant(c);
    long ra = enlist(a, la);
    long rb = enlist(b, lb);
    long rc = enlist(c, lc);
    // Keys under the prefix that are not participant keys: another name, upper-case hex, and a
    // key named for a lease but not bound to it.
    long other = grant(a);
    put(Participant.prefix(key) + "not-a-lease", "x", other);
    put(Participant.prefix(key) + String.format("%016X", 0xabcdefL), "x", other);
    put(Participant.keyOf(key, lc + 1000), "x", other);

    EtcdInput.PollResult queue = (EtcdInput.PollResult) call(a, new EtcdCommand.Poll(op(), true));
    assertNull(queue.key(), "nobody holds the key");
    assertEquals(
        List.of(new Participant("a", la, ra, ra), new Participant("b", lb, rb, rb),
            new Participant("c", lc, rc, rc)),
        queue.participants());
    assertTrue(queue.revision() >= rc);

    long again = enlist(a, la);
    long token = ((EtcdInput.CampaignWon) call(b, new EtcdCommand.Campaign(op(), lb))).createRevision();
    queue = (EtcdInput.PollResult) call(c, new EtcdCommand.Poll(op(), true));
    assertEquals(
        List.of(new Participant("b", lb, rb, rb), new Participant("c", lc, rc, rc),
            new Participant("a", la, ra, again)),
        queue.participants(), "a went to the tail, keeping its create revision");
    assertEquals(new KeyRecord("b", lb, token, token), queue.key(), "the key, read at the same revision");
    assertTrue(queue.revision() >= token);

    EtcdInput.PollResult alone = (EtcdInput.PollResult) call(c, new EtcdCommand.Poll(op()));
    assertNull(alone.participants(), "a poll without participants reads the key alone");
    assertEquals(new KeyRecord("b", lb, token, token), alone.key());
  }

  @Test
  void aHandoverPutsTheKeyOnTheSuccessorsLeaseAndTheWatchSeesIt() throws Exception {
    EtcdPort a = store("a");
    EtcdPort b = store("b");
    EtcdPort watcher = store("w");
    long la = grant(a);
    long lb = grant(b);
    long token = ((EtcdInput.CampaignWon) call(a, new EtcdCommand.Campaign(op(), la))).createRevision();
    List<Input> events = new CopyOnWriteArrayList<>();
    watcher.send(new EtcdCommand.Watch(7, token + 1, true), events::add);

    long ra = enlist(a, la);
    long rb = enlist(b, lb);
    await().atMost(WAIT).until(() -> events.contains(
        new EtcdInput.WatchEnlisted(7, new Participant("b", lb, rb, rb), rb)));
    assertTrue(events.contains(new EtcdInput.WatchEnlisted(7, new Participant("a", la, ra, ra), ra)));

    EtcdInput.PollResult queue = (EtcdInput.PollResult) call(a, new EtcdCommand.Poll(op(), true));
    Participant successor = queue.participants().stream().filter(p -> p.leaseId() != la).findFirst().orElseThrow();
    assertEquals(new Participant("b", lb, rb, rb), successor);

    EtcdInput.HandedOver done =
        (EtcdInput.HandedOver) call(a, new EtcdCommand.Handover(op(), token, la, successor));
    KeyValue k = get(key).orElseThrow();
    assertEquals("b", text(k.getValue()));
    assertEquals(lb, k.getLease(), "the key is on the successor's lease");
    assertEquals(done.revision(), k.getModRevision(), "the successor's token is the handover's revision");
    assertEquals(token, k.getCreateRevision(), "the key was rewritten, not re-created");
    KeyValue own = get(Participant.keyOf(key, la)).orElseThrow();
    assertEquals(done.revision(), own.getModRevision(), "the resigner's participant key went to the tail");
    assertEquals(la, own.getLease());
    assertEquals(ra, own.getCreateRevision());

    KeyRecord handed = new KeyRecord("b", lb, token, done.revision());
    await().atMost(WAIT).until(() -> events.contains(new EtcdInput.WatchPut(7, handed, done.revision())));
    await().atMost(WAIT).until(() -> events.contains(
        new EtcdInput.WatchEnlisted(7, new Participant("a", la, ra, done.revision()), done.revision())));

    // The successor's lease ends: the key and its participant key go with it, in one revision.
    b.release(lb).toCompletableFuture().get(5, TimeUnit.SECONDS);
    await().atMost(WAIT).until(() -> events.stream().anyMatch(e -> e instanceof EtcdInput.WatchDelete));
    long deleted = events.stream()
        .filter(e -> e instanceof EtcdInput.WatchDelete).map(e -> ((EtcdInput.WatchDelete) e).revision())
        .findFirst().orElseThrow();
    await().atMost(WAIT).until(() -> events.contains(new EtcdInput.WatchWithdrawn(7, lb, deleted)));
    assertFalse(events.stream().anyMatch(e -> e instanceof EtcdInput.WatchFailed), events.toString());
    assertTrue(events.stream().allMatch(EtcdPortQueueIT::fromWatch7), events.toString());
  }

  @Test
  void aHandoverIsRefusedWhenTheTokenIsStaleOrTheSuccessorLeftTheQueue() throws Exception {
    EtcdPort a = store("a");
    EtcdPort b = store("b");
    EtcdPort c = store("c");
    long la = grant(a);
    long lb = grant(b);
    long lc = grant(c);
    long token = ((EtcdInput.CampaignWon) call(a, new EtcdCommand.Campaign(op(), la))).createRevision();
    long rb = enlist(b, lb);
    long rc = enlist(c, lc);
    Participant pb = new Participant("b", lb, rb, rb);
    Participant pc = new Participant("c", lc, rc, rc);

    long handed = ((EtcdInput.HandedOver) call(a, new EtcdCommand.Handover(op(), token, la, pb))).revision();
    KeyRecord bs = new KeyRecord("b", lb, token, handed);

    // a's token is stale now: its second handover is refused and names the key's holder.
    EtcdInput.HandoverRefused stale =
        (EtcdInput.HandoverRefused) call(a, new EtcdCommand.Handover(op(), token, la, pc));
    assertEquals(bs, stale.key());
    assertTrue(stale.revision() >= handed);

    // The successor's participant key was deleted and put again (a new create revision): refused.
    outside.getKVClient().delete(bytes(Participant.keyOf(key, lc))).get(5, TimeUnit.SECONDS);
    long rejoined = put(Participant.keyOf(key, lc), "c", lc);
    EtcdInput.HandoverRefused recreated =
        (EtcdInput.HandoverRefused) call(b, new EtcdCommand.Handover(op(), handed, lb, pc));
    assertEquals(bs, recreated.key());

    // The successor's lease is gone, and its participant key with it: refused.
    Participant again = new Participant("c", lc, rejoined, rejoined);
    c.release(lc).toCompletableFuture().get(5, TimeUnit.SECONDS);
    EtcdInput.HandoverRefused gone =
        (EtcdInput.HandoverRefused) call(b, new EtcdCommand.Handover(op(), handed, lb, again));
    assertEquals(bs, gone.key());

    KeyValue k = get(key).orElseThrow();
    assertEquals(lb, k.getLease(), "no refused handover touched the key");
    assertEquals(handed, k.getModRevision());
    assertEquals(rb, get(Participant.keyOf(key, lb)).orElseThrow().getModRevision(),
        "nor put the resigner's participant key");

    // The key deleted: refused, with no key.
    outside.getKVClient().delete(bytes(key)).get(5, TimeUnit.SECONDS);
    EtcdInput.HandoverRefused absent =
        (EtcdInput.HandoverRefused) call(b, new EtcdCommand.Handover(op(), handed, lb, pb));
    assertNull(absent.key());
  }

  @Test
  void aWriteGuardedByTheOldTokenFailsAfterAHandover() throws Exception {
    EtcdPort a = store("a");
    EtcdPort b = store("b");
    long la = grant(a);
    long lb = grant(b);
    long token = ((EtcdInput.CampaignWon) call(a, new EtcdCommand.Campaign(op(), la))).createRevision();
    long rb = enlist(b, lb);
    Leadership first = new FencedTerm(key, token);
    assertTrue(guardedPut(first, "by a").isSucceeded(), "a campaign's token is the key's mod revision too");

    long handed = ((EtcdInput.HandedOver) call(
        a, new EtcdCommand.Handover(op(), token, la, new Participant("b", lb, rb, rb)))).revision();
    assertFalse(guardedPut(first, "by a, stale").isSucceeded(), "the old term's write is refused");
    assertTrue(guardedPut(new FencedTerm(key, handed), "by b").isSucceeded(), "the successor's token is the handover's revision");
    assertEquals("by b", text(get(key + "/work").orElseThrow().getValue()));

    // The chaos harness's record of etcd's history sees two terms, the handover ending the first.
    StoreHistory h = StoreHistory.read(ETCD.cluster().clientEndpoints(), key, key, key + "/counter");
    assertEquals(
        List.of(new Incarnation(token, handed, "a"), new Incarnation(handed, Long.MAX_VALUE, "b")),
        h.incarnations());
  }

  @Test
  void aWatchWhoseWatchersBothFailIsReportedFailedOnce() throws Exception {
    // Its own cluster: the compaction would break StoreHistory's replay from revision 1 in the
    // tests that share the class's cluster.
    try (EtcdCluster own = EtcdCluster.start(1); Client client = own.clientBuilder().build()) {
      EtcdPort a = store(client, "a");
      long la = grant(a);
      long early = enlist(a, la);
      long late = enlist(a, la);
      client.getKVClient().compact(late).get(5, TimeUnit.SECONDS);

      // Both watchers start below the compaction, and both fail: one WatchFailed.
      List<Input> events = new CopyOnWriteArrayList<>();
      a.send(new EtcdCommand.Watch(9, early, true), events::add);
      await().atMost(WAIT).until(() -> !events.isEmpty());
      EtcdInput.WatchFailed failed = (EtcdInput.WatchFailed) events.get(0);
      assertEquals(9, failed.watchId());
      assertTrue(failed.compacted(), failed.toString());
      await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> events.size() == 1);
      a.close();
    }
  }

  @Test
  void aCancelledWatchReportsNothingMore() throws Exception {
    EtcdPort a = store("a");
    long la = grant(a);
    long early = enlist(a, la);
    List<Input> quiet = new CopyOnWriteArrayList<>();
    a.send(new EtcdCommand.Watch(10, early + 1, true), quiet::add);
    long seen = enlist(a, la);
    await().atMost(WAIT).until(() -> quiet.size() == 1);
    assertEquals(new EtcdInput.WatchEnlisted(10, new Participant("a", la, early, seen), seen), quiet.get(0));

    // No end, and no events of either watcher: neither the prefix's nor the key's.
    a.send(new EtcdCommand.CancelWatch(10), quiet::add);
    enlist(a, la);
    call(a, new EtcdCommand.Campaign(op(), la));
    await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> quiet.size() == 1);
  }

  // ---- helpers ----

  private EtcdPort store(String candidateId) {
    return store(outside, candidateId);
  }

  private EtcdPort store(Client client, String candidateId) {
    EtcdPort s = new EtcdPort(() -> client, false, key, candidateId, new EtcdReasons(key, null), null, 100_000_000L);
    s.open();
    stores.add(s);
    return s;
  }

  private long op() {
    return ops.incrementAndGet();
  }

  private static Input call(EtcdPort store, StoreCall call) throws Exception {
    CompletionStage<? extends Input> reply = store.call(call);
    Input in = reply.toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertNotNull(in);
    if (in instanceof Input.Failed) {
      throw new AssertionError("call " + call + " failed: " + in);
    }
    return in;
  }

  private long grant(EtcdPort store) throws Exception {
    return ((EtcdInput.LeaseGranted) call(store, new EtcdCommand.GrantLease(op(), TTL))).leaseId();
  }

  private long enlist(EtcdPort store, long leaseId) throws Exception {
    return ((EtcdInput.Enlisted) call(store, new EtcdCommand.Enlist(op(), leaseId))).revision();
  }

  private long put(String k, String value, long leaseId) throws Exception {
    return outside.getKVClient()
        .put(bytes(k), bytes(value), PutOption.builder().withLeaseId(leaseId).build())
        .get(5, TimeUnit.SECONDS).getHeader().getRevision();
  }

  private Optional<KeyValue> get(String k) throws Exception {
    return outside.getKVClient().get(bytes(k)).get(5, TimeUnit.SECONDS).getKvs().stream().findFirst();
  }

  private TxnResponse guardedPut(Leadership term, String value) throws Exception {
    return EtcdFencing.guard(outside.getKVClient().txn(), term)
        .Then(Op.put(bytes(key + "/work"), bytes(value), PutOption.DEFAULT))
        .commit()
        .get(5, TimeUnit.SECONDS);
  }

  private static boolean fromWatch7(Input e) {
    return (e instanceof EtcdInput.WatchPut p && p.watchId() == 7)
        || (e instanceof EtcdInput.WatchDelete d && d.watchId() == 7)
        || (e instanceof EtcdInput.WatchEnlisted n && n.watchId() == 7)
        || (e instanceof EtcdInput.WatchWithdrawn w && w.watchId() == 7);
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  private static String text(ByteSequence b) {
    return b.toString(StandardCharsets.UTF_8);
  }
}
