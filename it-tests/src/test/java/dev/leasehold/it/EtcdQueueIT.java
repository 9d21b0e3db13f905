package dev.leasehold.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.LeaderElector;
import dev.leasehold.LeaderInfo;
import dev.leasehold.Participant;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The queue and the handover (PROTOCOL.md §4.5) on a real one-member etcd: what etcd holds
 * after a handover, and how many raft proposals a term change costs, counted by etcd itself
 * ({@code etcd_server_proposals_committed_total}).
 */
class EtcdQueueIT {
  private static final Logger log = LoggerFactory.getLogger(EtcdQueueIT.class);
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
  void aResignHandsTheKeyToTheQueuesHeadInOneProposal() throws Exception {
    for (String id : List.of("a", "b", "c")) {
      candidates.add(id, TTL);
    }
    candidates.startAll();
    LeaderElector leader = awaitLeader();
    long leaderLease = leader.currentLeader().orElseThrow().leaseId();
    // Both followers joined the queue with their standby leases.
    await().atMost(WAIT).until(() -> others(leader, leaderLease).size() == 2);
    Participant head = others(leader, leaderLease).get(0);
    KeyValue before = key();
    awaitAllKnow(leader.currentLeader().orElseThrow());
    double p0 = proposals();

    leader.resign();
    await().atMost(WAIT).until(() -> candidates.leader().filter(l -> l != leader).isPresent());
    LeaderElector next = candidates.leader().orElseThrow();
    LeaderInfo term = next.currentLeader().orElseThrow();
    awaitAllKnow(term);
    double cost = proposals() - p0;

    KeyValue after = key();
    assertEquals(head.leaseId(), term.leaseId(), "the head of the queue leads");
    assertEquals(head.candidateId(), term.candidateId());
    assertEquals(after.getModRevision(), term.fencingToken(), "the token is K's mod revision");
    assertTrue(term.fencingToken() > before.getModRevision(), "tokens increase");
    assertEquals(before.getCreateRevision(), after.getCreateRevision(),
        "the key was handed over, not deleted and taken again");
    assertEquals(head.leaseId(), after.getLease());
    // The resigner kept its lease as a standby and went to the tail of the queue.
    List<KeyValue> keys = participantKeys();
    assertEquals(3, keys.size(), keys::toString);
    KeyValue tail = keys.stream().max((x, y) -> Long.compare(x.getModRevision(), y.getModRevision())).orElseThrow();
    assertEquals(leaderLease, tail.getLease(), "the resigner is last in the queue");
    log.info("handover cost {} raft proposals", cost);
    assertTrue(cost <= 2, () -> "a handover took " + cost + " proposals");
  }

  @Test
  void aLeaderGoneWithoutHandoverCostsTwoProposalsAmongEightCandidates() throws Exception {
    for (int i = 0; i < 8; i++) {
      candidates.add("c" + i, TTL);
    }
    candidates.startAll();
    LeaderElector leader = awaitLeader();
    // Every follower is queued: seven participant keys.
    await().atMost(WAIT).until(() -> participantKeys().size() == 7);
    LeaderInfo was = leader.currentLeader().orElseThrow();
    awaitAllKnow(was);
    double p0 = proposals();

    // close() revokes the lease: the key and nothing else goes, as when etcd expires a crashed
    // leader's lease. Without the queue, all seven followers would campaign.
    leader.close();
    await().atMost(WAIT).until(() -> candidates.leader().filter(l -> l != leader).isPresent());
    LeaderInfo term = candidates.leader().orElseThrow().currentLeader().orElseThrow();
    assertNotEquals(was.leaseId(), term.leaseId());
    awaitAllKnow(term);
    double cost = proposals() - p0;
    log.info("a leader gone among 8 candidates cost {} raft proposals", cost);
    assertTrue(cost <= 3, () -> "the term change took " + cost + " proposals: a herd");
  }

  @Test
  void participantsListEveryQueuedCandidateInOrderAsEtcdHoldsThem() throws Exception {
    for (String id : List.of("p", "q", "r")) {
      candidates.add(id, TTL);
    }
    candidates.startAll();
    LeaderElector leader = awaitLeader();
    LeaderElector follower = candidates.electors.stream().filter(e -> e != leader).findFirst().orElseThrow();
    await().atMost(WAIT).until(() -> participants(follower).size() >= 2);
    List<Long> fromEtcd = participantKeys().stream()
        .sorted((x, y) -> Long.compare(x.getModRevision(), y.getModRevision()))
        .map(KeyValue::getLease)
        .collect(Collectors.toList());
    assertEquals(fromEtcd, participants(follower).stream().map(Participant::leaseId).toList());
    for (Participant p : participants(follower)) {
      String name = Participant.keyOf(candidates.key, p.leaseId());
      KeyValue kv = outside.getKVClient().get(ByteSequence.from(name, StandardCharsets.UTF_8))
          .get(5, TimeUnit.SECONDS).getKvs().get(0);
      assertEquals(p.candidateId(), kv.getValue().toString(StandardCharsets.UTF_8), "the value names the candidate");
    }
  }

  private LeaderElector awaitLeader() {
    await().atMost(WAIT).until(() -> candidates.leader().isPresent());
    return candidates.leader().orElseThrow();
  }

  private void awaitAllKnow(LeaderInfo term) {
    await().atMost(WAIT).until(() -> candidates.electors.stream()
        .filter(e -> e.state() != dev.leasehold.ElectorState.STOPPED)
        .allMatch(e -> e.currentLeader().map(l -> l.fencingToken() == term.fencingToken()).orElse(false)));
  }

  private static List<Participant> others(LeaderElector e, long leaderLease) throws Exception {
    return participants(e).stream().filter(p -> p.leaseId() != leaderLease).toList();
  }

  private static List<Participant> participants(LeaderElector e) throws Exception {
    return e.participants().toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  private KeyValue key() throws Exception {
    return outside.getKVClient().get(ByteSequence.from(candidates.key, StandardCharsets.UTF_8))
        .get(5, TimeUnit.SECONDS).getKvs().get(0);
  }

  private List<KeyValue> participantKeys() throws Exception {
    ByteSequence prefix = ByteSequence.from(Participant.prefix(candidates.key), StandardCharsets.UTF_8);
    return outside.getKVClient().get(prefix, GetOption.builder().isPrefix(true).build())
        .get(5, TimeUnit.SECONDS).getKvs();
  }

  /** proposals reads etcd's count of committed raft proposals from its metrics endpoint. */
  private static double proposals() throws IOException {
    URL url = URI.create(ETCD.cluster().clientEndpoints().get(0) + "/metrics").toURL();
    try (InputStream in = url.openStream()) {
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      for (String line : text.split("\n")) {
        if (line.startsWith("etcd_server_proposals_committed_total ")) {
          return Double.parseDouble(line.substring(line.indexOf(' ') + 1).trim());
        }
      }
    }
    throw new IllegalStateException("etcd_server_proposals_committed_total not in /metrics");
  }
}
