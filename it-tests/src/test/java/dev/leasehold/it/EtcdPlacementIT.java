package dev.leasehold.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.LeaderElector;
import dev.leasehold.LeaderInfo;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.Participant;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Priority, preemption and transfer (PROTOCOL.md §4.5) on a real one-member etcd: a crashed
 * leader's key goes to the highest-priority live candidate, a handover to the highest queued
 * one, a leader configured to preempt hands over to a higher-priority candidate after its
 * delay, and not before; {@code transferTo} hands the term to the named candidate, refuses one
 * not queued, and a transfer to a target that dies at once leaves the key free within a TTL; a
 * leader whose health check fails yields to a healthy candidate and leaves the queue.
 */
class EtcdPlacementIT {
  private static final Logger log = LoggerFactory.getLogger(EtcdPlacementIT.class);
  private static final Duration TTL = Duration.ofSeconds(2);
  private static final Duration WAIT = Duration.ofSeconds(20);

  @RegisterExtension static final EtcdClusterExtension ETCD = EtcdClusterExtension.members(1);

  private Candidates candidates;
  private Client outside;

  @BeforeEach
  void setUp(TestInfo info) {
    candidates = new Candidates(ETCD.cluster(), info.getTestMethod().orElseThrow().getName());
    outside = Client.builder().endpoints(ETCD.cluster().clientEndpoints().toArray(String[]::new)).build();
  }

  @AfterEach
  void tearDown() {
    candidates.close();
    outside.close();
  }

  @Test
  void aCrashGivesTheKeyToTheHighestPriorityAndAHandoverToTheHighestQueued() throws Exception {
    LeaderElector first = candidates.add("first", TTL);
    first.start();
    await().atMost(WAIT).until(first::isLeader);
    LeaderElector p1 = candidates.add("p1", TTL, b -> b.priority(1));
    LeaderElector p5 = candidates.add("p5", TTL, b -> b.priority(5));
    LeaderElector p3 = candidates.add("p3", TTL, b -> b.priority(3));
    List.of(p1, p5, p3).forEach(LeaderElector::start);
    await().atMost(WAIT).until(() -> queued(first).size() == 3);
    List<Participant> queue = queued(first);
    assertEquals(List.of("p5", "p3", "p1"), queue.stream().map(Participant::candidateId).toList(),
        "the queue is ordered by priority: " + queue);

    // A crash: the leader's lease is revoked from outside; the no-herd count ranks by priority.
    long lease = first.currentLeader().orElseThrow().leaseId();
    outside.getLeaseClient().revoke(lease).get(5, TimeUnit.SECONDS);
    await().atMost(WAIT).until(() -> candidates.leader().filter(l -> l != first).isPresent());
    assertEquals(p5, candidates.leader().orElseThrow(), "the highest priority took the free key");

    // A handover goes to the highest-priority candidate in the queue.
    await().atMost(WAIT).until(() -> queued(p5).stream().anyMatch(p -> p.candidateId().equals("p3")));
    p5.resign();
    await().atMost(WAIT).until(() -> candidates.leader().filter(l -> l != p5).isPresent());
    assertEquals(p3, candidates.leader().orElseThrow(), "the resign handed over to the highest queued");
    assertEquals(1, candidates.leaderCount());
  }

  @Test
  void aLeaderHandsOverToAHigherPriorityAfterItsPreemptDelayAndNotBefore() {
    Duration delay = Duration.ofSeconds(1);
    LeaderElector low = candidates.add("low", TTL, b -> b.preemptAfter(delay));
    low.start();
    await().atMost(WAIT).until(low::isLeader);
    long token = low.leadership().orElseThrow().fencingToken();
    LeaderElector high = candidates.add("high", TTL, b -> b.priority(10));
    long started = System.nanoTime();
    high.start();
    await().atMost(WAIT).until(high::isLeader);
    long elected = candidates.logOf(high).awaitLast(Cause.ELECTED, WAIT).nanoTime();
    LeadershipEvent lost = candidates.logOf(low).awaitLast(Cause.PREEMPTED, WAIT);
    log.info("preempted {} ms after the higher-priority candidate started (delay {} ms); handed over {} ms after",
        (lost.nanoTime() - started) / 1_000_000, delay.toMillis(), (elected - lost.nanoTime()) / 1_000_000);
    assertTrue(lost.nanoTime() - started >= delay.toNanos(), "not before the delay");
    assertTrue(elected >= lost.nanoTime(), "the old leader stepped down first");
    assertTrue(high.leadership().orElseThrow().fencingToken() > token);
    assertFalse(low.isLeader());
    // A lower priority never preempts back.
    await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(3)).until(high::isLeader);
  }

  @Test
  void transferToHandsTheTermToTheNamedCandidateAndRefusesOneNotQueued() throws Exception {
    LeaderElector a = candidates.add("a", TTL);
    a.start();
    await().atMost(WAIT).until(a::isLeader);
    LeaderElector head = candidates.add("head", TTL, b -> b.priority(5));
    LeaderElector named = candidates.add("named", TTL);
    head.start();
    named.start();
    await().atMost(WAIT).until(() -> queued(a).size() == 2);
    long token = a.leadership().orElseThrow().fencingToken();

    // Not queued: refused, and the term is kept.
    ExecutionException refused = assertThrows(ExecutionException.class,
        () -> a.transferTo("ghost").toCompletableFuture().get(5, TimeUnit.SECONDS));
    assertTrue(refused.getCause().getMessage().contains("ghost is not a live participant"), refused.getMessage());
    assertTrue(a.isLeader());
    assertEquals(token, a.leadership().orElseThrow().fencingToken());

    // Named, not the queue's head (which has the higher priority): the key goes to it.
    long asked = System.nanoTime();
    LeaderInfo next = a.transferTo("named").toCompletableFuture().get(5, TimeUnit.SECONDS);
    long committed = System.nanoTime();
    assertEquals("named", next.candidateId());
    assertTrue(next.fencingToken() > token, "a higher token: " + next);
    await().atMost(WAIT).until(named::isLeader);
    long elected = candidates.logOf(named).awaitLast(Cause.ELECTED, WAIT).nanoTime();
    log.info("transferTo: committed {} ms after the call, the target ELECTED {} ms after the call",
        (committed - asked) / 1_000_000, (elected - asked) / 1_000_000);
    assertEquals(next.fencingToken(), named.leadership().orElseThrow().fencingToken());
    candidates.logOf(a).awaitLast(Cause.TRANSFERRED, WAIT);
    assertFalse(a.isLeader());
    assertFalse(head.isLeader());
    assertEquals(1, candidates.leaderCount());

    // A follower has no term to transfer.
    ExecutionException notLeader = assertThrows(ExecutionException.class,
        () -> a.transferTo("head").toCompletableFuture().get(5, TimeUnit.SECONDS));
    assertTrue(notLeader.getCause().getMessage().contains("does not lead"), notLeader.getMessage());
  }

  @Test
  void aTransferToACandidateThatDiesAtOnceFreesTheKeyWithinATtl() throws Exception {
    LeaderElector a = candidates.add("a", TTL);
    a.start();
    await().atMost(WAIT).until(a::isLeader);
    LeaderElector doomed = candidates.add("doomed", TTL);
    LeaderElector other = candidates.add("other", TTL);
    doomed.start();
    other.start();
    await().atMost(WAIT).until(() -> queued(a).size() == 2);
    long doomedLease = queued(a).stream().filter(p -> p.candidateId().equals("doomed")).findFirst().orElseThrow()
        .leaseId();
    LeaderInfo handed = a.transferTo("doomed").toCompletableFuture().get(5, TimeUnit.SECONDS);
    // The target dies the moment the key is its: etcd ends its lease, and the key goes with it.
    outside.getLeaseClient().revoke(doomedLease).get(5, TimeUnit.SECONDS);
    long died = System.nanoTime();
    await().atMost(WAIT).until(() -> candidates.leader().filter(l -> l != doomed).isPresent());
    long lead = candidates.logOf(candidates.leader().orElseThrow()).awaitLast(Cause.ELECTED, WAIT).nanoTime();
    log.info("transfer to a target that died at once: another leader {} ms after its lease ended (TTL {} ms)",
        (lead - died) / 1_000_000, TTL.toMillis());
    assertTrue(candidates.leader().orElseThrow().leadership().orElseThrow().fencingToken() > handed.fencingToken());
    assertEquals(1, candidates.leaderCount());
    assertFalse(doomed.isLeader());
  }

  @Test
  void anUnhealthyLeaderYieldsToAHealthyCandidate() {
    java.util.concurrent.atomic.AtomicBoolean poolWorks = new java.util.concurrent.atomic.AtomicBoolean(true);
    LeaderElector a = candidates.add("a", TTL, b -> b.healthCheck(poolWorks::get)
        .healthCheckInterval(Duration.ofMillis(100)).healthCheckThreshold(3));
    a.start();
    await().atMost(WAIT).until(a::isLeader);
    LeaderElector b = candidates.add("b", TTL, x -> x.healthCheck(() -> true));
    b.start();
    await().atMost(WAIT).until(() -> queued(a).size() == 1);
    long token = a.leadership().orElseThrow().fencingToken();
    long broke = System.nanoTime();
    poolWorks.set(false);
    await().atMost(WAIT).until(b::isLeader);
    LeadershipEvent yielded = candidates.logOf(a).awaitLast(Cause.UNHEALTHY, WAIT);
    long elected = candidates.logOf(b).awaitLast(Cause.ELECTED, WAIT).nanoTime();
    log.info("unhealthy leader: yielded {} ms after its check began to fail (3 x 100 ms), the other ELECTED {} ms"
        + " after that", (yielded.nanoTime() - broke) / 1_000_000, (elected - yielded.nanoTime()) / 1_000_000);
    assertTrue(b.leadership().orElseThrow().fencingToken() > token);
    await().atMost(WAIT).until(() -> queued(b).isEmpty());
    assertTrue(a.health().unhealthy().orElseThrow().contains("out of the queue"), a.health().toString());
    assertEquals(1, candidates.leaderCount());
  }

  private static List<Participant> queued(LeaderElector leader) throws Exception {
    long own = leader.currentLeader().map(l -> l.leaseId()).orElse(0L);
    return leader.participants().toCompletableFuture().get(5, TimeUnit.SECONDS).stream()
        .filter(p -> p.leaseId() != own).toList();
  }
}
