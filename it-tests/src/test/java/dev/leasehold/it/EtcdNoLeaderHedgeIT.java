package dev.leasehold.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.LeaderElector;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.etcd.EtcdCallPolicy;
import dev.leasehold.etcd.EtcdLeaderElector;
import dev.leasehold.it.chaos.PeerProxies;
import dev.leasehold.it.chaos.TcpProxy;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.Test;

/**
 * EtcdNoLeaderHedgeIT: a MASTER whose client also uses an etcd member that was cut off from its
 * peers, and that still answers its clients at once with {@code etcdserver: no leader}, renews
 * without one failed call (PROTOCOL.md §4.2, hedged renewals; issue 27's composed fault, where
 * such answers cost a MASTER its term).
 *
 * <p>jetcd sends each call to the next member of its endpoints, so with the cut-off member and a
 * healthy one, every other renewal call goes to the cut-off member. Its refusal sends the call's
 * second copy at once, to the other member, and the machine sees one answer. Before that, each
 * such refusal reached the machine as a failed call and cost a backed-off retry. The calls are
 * read from the elector's own Flight Recorder events ({@code dev.leasehold.StoreCall}).
 */
class EtcdNoLeaderHedgeIT {
  private static final String KEY = "/leasehold/it/no-leader-hedge";

  /** Call is one store call the elector made: its kind, its failure (or null), when it was answered. */
  private record Call(String kind, String failure, long answeredNanos) {}

  @Test
  void aMastersRenewalsHedgeTheCutOffMembersNoLeaderAnswersAndNoneFails() throws Exception {
    List<Call> calls = new CopyOnWriteArrayList<>();
    try (PeerProxies peers = new PeerProxies();
        EtcdCluster cluster = EtcdCluster.builder().members(3).name("no-leader-hedge")
            .electionTimeoutMillis(500).preVote(true).peerRouter(peers).start();
        RecordingStream rs = new RecordingStream()) {
      peers.attach(cluster);
      rs.enable("dev.leasehold.StoreCall").withoutThreshold();
      rs.onEvent("dev.leasehold.StoreCall", e -> calls.add(
          new Call(e.getString("call"), e.getString("failure"), e.getLong("answeredNanoTime"))));
      rs.startAsync();

      EtcdMember cut = cluster.awaitLeader(Duration.ofSeconds(10));
      EtcdMember healthy = cluster.members().stream().filter(m -> m != cut).findFirst().orElseThrow();
      List<LeadershipEvent> events = new CopyOnWriteArrayList<>();
      try (LeaderElector elector = EtcdLeaderElector.builder()
          .endpoints(cut.clientEndpoint(), healthy.clientEndpoint())
          .electionKey(KEY).candidateId("master").leaseTtl(Duration.ofSeconds(4)).build()) {
        elector.onLeadershipChanged(events::add);
        elector.start();
        await().atMost(Duration.ofSeconds(15)).until(elector::isLeader);
        long token = elector.leadership().orElseThrow().fencingToken();

        // Cut the etcd leader off from its peers: it steps down (CheckQuorum) and, having no
        // leader, refuses its clients at once; the other two elect a leader of their own.
        peers.isolate(cut.name(), TcpProxy.Mode.BLACKHOLE);
        try (Client onCut = Client.builder().endpoints(cut.clientEndpoint())
            .interceptor(new EtcdCallPolicy(Duration.ofSeconds(1))).build()) {
          await().atMost(Duration.ofSeconds(15)).until(() -> refusesNoLeader(onCut));
        }
        await().atMost(Duration.ofSeconds(15))
            .until(() -> cluster.leader().filter(l -> l != cut).isPresent());
        // Let the renewal that spanned the election settle (the first one confirmed after it),
        // then watch about four renewal intervals, failing at once if the term ends.
        long elected = System.nanoTime();
        await("a renewal confirmed after etcd's election").atMost(Duration.ofSeconds(10))
            .failFast(() -> assertTrue(elector.isLeader(), () -> "the term ended: " + events))
            .until(() -> calls.stream().anyMatch(
                c -> c.kind().equals("ConfirmRead") && c.failure() == null && c.answeredNanos() > elected));
        long from = System.nanoTime();
        await("still MASTER").during(Duration.ofSeconds(7)).atMost(Duration.ofSeconds(9))
            .failFast(() -> assertTrue(elector.isLeader(), () -> "the term ended: " + events))
            .until(elector::isLeader);
        long until = System.nanoTime();

        assertTrue(elector.isLeader(), "still MASTER: " + events);
        assertEquals(token, elector.leadership().orElseThrow().fencingToken(), "the same term");
        // A renewal sent while etcd itself had no leader anywhere (the two others still electing)
        // may fail and be reported (MASTER -> MASTER, STORE_UNAVAILABLE, then STORE_RECOVERED);
        // the term must not end.
        assertTrue(events.stream().noneMatch(LeadershipEvent::isLost), "no term lost: " + events);
        List<Call> renewals = calls.stream()
            .filter(c -> c.answeredNanos() >= from && c.answeredNanos() <= until)
            .filter(c -> c.kind().equals("KeepAlive") || c.kind().equals("ConfirmRead"))
            .toList();
        assertTrue(renewals.stream().filter(c -> c.kind().equals("KeepAlive")).count() >= 3,
            "the MASTER renewed over 7 s: " + renewals);
        assertEquals(List.of(), renewals.stream().filter(c -> c.failure() != null).toList(),
            "renewal calls that failed although a member with a leader was one call away");
      } finally {
        peers.heal();
      }
    }
  }

  // One read through the cut-off member alone, with etcd's hasleader metadata, as the elector sends it.
  private static boolean refusesNoLeader(Client onCut) throws InterruptedException {
    try {
      onCut.getKVClient().get(ByteSequence.from(KEY, StandardCharsets.UTF_8)).get(5, TimeUnit.SECONDS);
      return false;
    } catch (ExecutionException e) {
      return String.valueOf(e.getCause()).contains("no leader");
    } catch (java.util.concurrent.TimeoutException e) {
      return false;
    }
  }
}
