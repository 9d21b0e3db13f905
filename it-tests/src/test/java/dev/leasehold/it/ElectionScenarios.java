package dev.leasehold.it;

import dev.leasehold.LeaderElector;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderInfo;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.etcd.EtcdFencing;
import dev.leasehold.etcd.EtcdLeaderElector;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.LeaseOption;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Scenarios every cluster size must pass; subclasses bind them to a real etcd cluster. */
abstract class ElectionScenarios {
  static final Logger log = LoggerFactory.getLogger(ElectionScenarios.class);
  static final Duration TTL = Duration.ofSeconds(2);
  static final Duration WAIT = Duration.ofSeconds(20);

  Candidates candidates;
  Client outside;

  abstract EtcdCluster cluster();

  @BeforeEach
  void setUp(TestInfo info) {
    candidates = new Candidates(cluster(), info.getTestMethod().orElseThrow().getName());
    outside = Client.builder().endpoints(cluster().clientEndpoints().toArray(String[]::new)).build();
  }

  @AfterEach
  void tearDown() {
    candidates.close();
    outside.close();
  }

  ByteSequence key() {
    return ByteSequence.from(candidates.key, StandardCharsets.UTF_8);
  }

  LeaderElector awaitSingleLeader() {
    await().atMost(WAIT).until(() -> candidates.leader().isPresent());
    return candidates.leader().orElseThrow();
  }

  @Test
  void awaitLeadershipReturnsEachTermItsCandidateWinsAndEndsOnTimeoutAndOnClose()
      throws Exception {
    LeaderElector a = candidates.add("a", TTL);
    LeaderElector b = candidates.add("b", TTL);
    a.start();
    Leadership first = a.awaitLeadership(WAIT).orElseThrow();
    assertEquals(first.fencingToken(), a.leadership().orElseThrow().fencingToken());
    b.start();
    await().atMost(WAIT).until(() -> b.currentLeader().isPresent());
    // b cannot win while a leads: the bounded wait ends empty.
    assertTrue(b.awaitLeadership(Duration.ofMillis(300)).isEmpty());
    var next = b.whenLeading().toCompletableFuture();
    assertFalse(next.isDone());
    a.resign();
    Leadership second = next.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    assertTrue(second.fencingToken() > first.fencingToken(), "tokens increase");
    assertEquals("b", second.candidateId());
    // a sits out its resign hold-off; closing it ends its wait at once.
    var never = a.whenLeading().toCompletableFuture();
    a.close();
    assertTrue(
        assertThrows(
                java.util.concurrent.ExecutionException.class,
                () -> never.get(WAIT.toMillis(), TimeUnit.MILLISECONDS))
            .getCause() instanceof java.util.concurrent.CancellationException);
    assertTrue(a.awaitLeadership(WAIT).isEmpty(), "a closed elector never leads");
  }

  @Test
  void fiveCandidatesElectExactlyOneMasterAndTheOthersKnowIt() {
    for (int i = 0; i < 5; i++) {
      candidates.add("node-" + i, TTL);
    }
    candidates.startAll();
    LeaderElector master = awaitSingleLeader();
    LeaderInfo info = master.currentLeader().orElseThrow();
    assertEquals(master.config().candidateId(), info.candidateId());
    assertEquals(master.leadership().orElseThrow().fencingToken(), info.fencingToken());
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              for (LeaderElector e : candidates.electors) {
                assertEquals(info, e.currentLeader().orElse(null), e.config().candidateId());
              }
            });
    assertEquals(1, candidates.masters().size());
    // The others report the leader to their listeners too.
    for (int i = 0; i < 5; i++) {
      LeaderElector e = candidates.electors.get(i);
      if (e != master) {
        EventLog l = candidates.logs.get(i);
        await().atMost(WAIT).until(() -> l.has(Cause.LEADER_CHANGED) || l.has(Cause.SUBSCRIBED)
            && l.events().get(0).leader().isPresent());
      }
    }
  }

  @Test
  void resignHandsLeadershipToAnotherCandidate() {
    for (int i = 0; i < 3; i++) {
      candidates.add("node-" + i, TTL);
    }
    candidates.startAll();
    LeaderElector first = awaitSingleLeader();
    long token = first.leadership().orElseThrow().fencingToken();
    long t0 = System.nanoTime();
    first.resign();
    await().atMost(WAIT).until(() -> candidates.leader().filter(l -> l != first).isPresent());
    LeaderElector second = candidates.leader().orElseThrow();
    LeadershipEvent elected = candidates.logOf(second).last(Cause.ELECTED).orElseThrow();
    log.info(
        "handover after resign(): {} ms ({} cluster)",
        String.format("%.1f", (elected.nanoTime() - t0) / 1e6),
        cluster().members().size());
    assertTrue(second.leadership().orElseThrow().fencingToken() > token, "token increases");
    assertTrue(candidates.logOf(first).has(Cause.RESIGNED));
    assertFalse(first.isLeader());
  }

  @Test
  void crashedMastersKeyIsTakenOverWithinTtlPlusOneSecond() {
    // The master's etcd client is closed under it without revoking: like a process crash.
    Client doomed = Client.builder().endpoints(cluster().clientEndpoints().toArray(String[]::new)).build();
    LeaderElector crashing =
        EtcdLeaderElector.builder()
            .client(doomed)
            .electionKey(candidates.key)
            .candidateId("crashing")
            .leaseTtl(TTL)
            .build();
    EventLog crashLog = new EventLog("crashing");
    crashing.onLeadershipChanged(crashLog);
    try {
      crashing.start();
      await().atMost(WAIT).until(crashing::isLeader);
      candidates.add("a", TTL);
      candidates.add("b", TTL);
      candidates.startAll();
      await().atMost(WAIT).until(() -> candidates.electors.stream().allMatch(e -> e.currentLeader().isPresent()));
      long t0 = System.nanoTime();
      doomed.close();
      await().atMost(TTL.plusSeconds(3)).until(() -> candidates.leader().isPresent());
      LeaderElector next = candidates.leader().orElseThrow();
      // isLeader() turns true before the listeners run: wait for the ELECTED event itself.
      await().atMost(WAIT).until(() -> candidates.logOf(next).has(Cause.ELECTED));
      long failover = candidates.logOf(next).last(Cause.ELECTED).orElseThrow().nanoTime() - t0;
      log.info("crash failover (client closed, TTL {}s): {} ms", TTL.toSeconds(), failover / 1_000_000);
      assertTrue(failover < TTL.plusSeconds(1).toNanos(), "failover took " + failover / 1e6 + " ms");
      // The crashed side stepped down on its own, before anyone else could be elected.
      await().atMost(WAIT).until(() -> crashLog.has(Cause.LEASE_EXPIRED_LOCALLY));
      LeadershipEvent stepDown = crashLog.last(Cause.LEASE_EXPIRED_LOCALLY).orElseThrow();
      assertTrue(
          stepDown.nanoTime() < candidates.logOf(next).last(Cause.ELECTED).orElseThrow().nanoTime(),
          "the old master stepped down before the new one was elected");
    } finally {
      crashing.close();
      doomed.close();
    }
    crashLog.assertOrderedAndPaired();
  }

  @Test
  void keyDeletedByAnOperatorMakesTheMasterStepDownAndAnotherIsElected() throws Exception {
    candidates.add("a", TTL);
    candidates.add("b", TTL);
    candidates.startAll();
    LeaderElector master = awaitSingleLeader();
    long token = master.leadership().orElseThrow().fencingToken();
    outside.getKVClient().delete(key()).get(5, TimeUnit.SECONDS);
    EventLog l = candidates.logOf(master);
    await().atMost(WAIT).until(() -> l.has(Cause.KEY_DELETED));
    await().atMost(WAIT).until(() -> candidates.leader().isPresent());
    assertTrue(candidates.leader().orElseThrow().leadership().orElseThrow().fencingToken() > token);
    candidates.logs.forEach(EventLog::assertOrderedAndPaired);
  }

  @Test
  void leaseRevokedByAnOperatorMakesTheMasterStepDownAndAnotherIsElected() throws Exception {
    candidates.add("a", TTL);
    candidates.add("b", TTL);
    candidates.startAll();
    LeaderElector master = awaitSingleLeader();
    long lease = master.leadership().orElseThrow().leaseId();
    outside.getLeaseClient().revoke(lease).get(5, TimeUnit.SECONDS);
    EventLog l = candidates.logOf(master);
    await().atMost(WAIT).until(() -> l.has(Cause.LEASE_REVOKED));
    await().atMost(WAIT).until(() -> candidates.leader().isPresent());
    candidates.logs.forEach(EventLog::assertOrderedAndPaired);
  }

  @Test
  void twoCandidatesWithTheSameIdNeverBothLead() {
    candidates.add("twin", TTL);
    candidates.add("twin", TTL);
    candidates.startAll();
    awaitSingleLeader();
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .until(() -> candidates.leaderCount() == 1 && candidates.masters().size() == 1);
    LeaderElector master = candidates.leader().orElseThrow();
    master.resign();
    await().atMost(WAIT).until(() -> candidates.leader().filter(l -> l != master).isPresent());
    assertEquals(1, candidates.leaderCount());
  }

  @Test
  void closeLeavesNoLeaseNoKeyAndNoThreadBehind() throws Exception {
    Set<Thread> before = nonDaemonThreads();
    candidates.add("a", TTL);
    candidates.add("b", TTL);
    candidates.startAll();
    LeaderElector master = awaitSingleLeader();
    long lease = master.leadership().orElseThrow().leaseId();
    candidates.close();
    for (LeaderElector e : candidates.electors) {
      assertEquals(ElectorState.STOPPED, e.state());
      assertFalse(e.isLeader());
    }
    assertEquals(0, outside.getKVClient().get(key()).get(5, TimeUnit.SECONDS).getCount(), "key left");
    long ttl = outside.getLeaseClient().timeToLive(lease, LeaseOption.DEFAULT).get(5, TimeUnit.SECONDS).getTTL();
    assertEquals(-1, ttl, "lease left behind");
    candidates.close(); // idempotent
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              Set<Thread> leftover = nonDaemonThreads();
              leftover.removeAll(before);
              assertEquals(Set.of(), leftover.stream().map(Thread::getName).collect(Collectors.toSet()));
            });
    candidates.logs.forEach(EventLog::assertOrderedAndPaired);
    for (EventLog l : candidates.logs) {
      assertEquals(Cause.CLOSED, l.events().get(l.events().size() - 1).cause());
    }
  }

  @Test
  void listenersGetOrderedPairedEventsAndAThrowingListenerHarmsNoOne() {
    AtomicInteger thrown = new AtomicInteger();
    LeaderElector a = candidates.add("a", TTL);
    LeaderElector b = candidates.add("b", TTL);
    a.onLeadershipChanged(e -> {
      thrown.incrementAndGet();
      throw new IllegalStateException("listener bug");
    });
    EventLog second = new EventLog("a-second");
    a.onLeadershipChanged(second);
    candidates.startAll();
    // Several terms: resign back and forth.
    for (int i = 0; i < 4; i++) {
      LeaderElector m = awaitSingleLeader();
      m.resign();
      await().atMost(WAIT).until(() -> candidates.leader().filter(l -> l != m).isPresent());
    }
    candidates.close();
    assertTrue(thrown.get() >= 3, "the throwing listener kept getting events: " + thrown.get());
    candidates.logs.forEach(EventLog::assertOrderedAndPaired);
    second.assertOrderedAndPaired();
    assertEquals(candidates.logOf(a).events().stream().map(LeadershipEvent::cause).toList(),
        second.events().stream().map(LeadershipEvent::cause).toList());
    assertTrue(candidates.logOf(a).count(Cause.ELECTED) + candidates.logOf(b).count(Cause.ELECTED) >= 4);
  }

  @Test
  void fencedWriteOfAFormerLeaderIsRefused() throws Exception {
    candidates.add("a", TTL);
    candidates.add("b", TTL);
    candidates.startAll();
    LeaderElector first = awaitSingleLeader();
    Leadership old = first.leadership().orElseThrow();
    ByteSequence counter = ByteSequence.from(candidates.key + "/counter", StandardCharsets.UTF_8);
    ByteSequence one = ByteSequence.from("1", StandardCharsets.UTF_8);
    TxnResponse ok =
        EtcdFencing.guard(outside.getKVClient().txn(), old)
            .Then(Op.put(counter, one, PutOption.DEFAULT))
            .commit()
            .get(5, TimeUnit.SECONDS);
    assertTrue(ok.isSucceeded(), "the current leader's fenced write succeeds");
    first.resign();
    await().atMost(WAIT).until(() -> candidates.leader().filter(l -> l != first).isPresent());
    assertFalse(old.isValid());
    assertEquals(Cause.RESIGNED, old.whenLost().toCompletableFuture().get(5, TimeUnit.SECONDS).cause());
    TxnResponse stale =
        EtcdFencing.guard(outside.getKVClient().txn(), old)
            .Then(Op.put(counter, one, PutOption.DEFAULT))
            .commit()
            .get(5, TimeUnit.SECONDS);
    assertFalse(stale.isSucceeded(), "a stale leader's fenced write is refused");
  }

  static Set<Thread> nonDaemonThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> !t.isDaemon() && t.isAlive())
        // Awaitility polls on a thread of its own; that one is the test's, not ours.
        .filter(t -> !t.getName().startsWith("awaitility"))
        .collect(Collectors.toSet());
  }

  static List<String> names(List<LeaderElector> es) {
    return es.stream().map(e -> e.config().candidateId()).toList();
  }
}
