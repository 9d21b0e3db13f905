package dev.leasehold.etcd;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.LeaderElector;
import dev.leasehold.it.EtcdClusterExtension;
import io.etcd.jetcd.Client;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An elector's watches end in etcd when it is done with them ({@link EndingWatcher}): a closed
 * elector on a shared client, and every watch an elector replaces while it runs, leave no watch
 * stream open in etcd (its {@code etcd_debugging_mvcc_watch_stream_total}), where jetcd's own
 * close leaves each one open until the client closes.
 */
class EtcdWatchStreamsIT {
  private static final Logger log = LoggerFactory.getLogger(EtcdWatchStreamsIT.class);

  @RegisterExtension static final EtcdClusterExtension ETCD = EtcdClusterExtension.members(1);

  @Test
  void electorsClosedOnASharedClientLeaveNoWatchStreamInEtcd() throws Exception {
    String url = ETCD.cluster().clientEndpoints().get(0);
    try (Client shared = Client.builder().endpoints(url)
        .executorService(EtcdCallPolicy.contextExecutor(Executors.newFixedThreadPool(2)))
        .interceptor(new EtcdCallPolicy(Duration.ofSeconds(1))).build()) {
      double before = watchStreams(url);
      for (int round = 0; round < 3; round++) {
        List<LeaderElector> electors = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
          LeaderElector e = EtcdLeaderElector.builder().client(shared).electionKey("/streams/round-" + round)
              .candidateId("c" + i).leaseTtl(Duration.ofSeconds(2)).build();
          e.start();
          electors.add(e);
        }
        // Every elector follows the one leader, so every one of them has its watch open.
        await().atMost(Duration.ofSeconds(15)).until(() -> everyoneKnowsOneLeader(electors));
        // Each handover moves every follower's view; the watches they replace must end too.
        for (int h = 0; h < 3; h++) {
          LeaderElector leader = electors.stream().filter(LeaderElector::isLeader).findFirst().orElseThrow();
          long token = leader.leadership().orElseThrow().fencingToken();
          leader.resign();
          await().atMost(Duration.ofSeconds(15)).until(() -> electors.stream().anyMatch(
              x -> x.isLeader() && x.leadership().map(t -> t.fencingToken() > token).orElse(false)));
          await().atMost(Duration.ofSeconds(15)).until(() -> everyoneKnowsOneLeader(electors));
        }
        // At most two watchers per elector (the key and its queue), each on a stream of its own.
        double open = watchStreams(url) - before;
        log.info("round {}: {} watch streams open for {} electors", round, open, electors.size());
        assertTrue(open <= 2 * electors.size(), open + " watch streams open for " + electors.size() + " electors");
        electors.forEach(LeaderElector::close);
        await().atMost(Duration.ofSeconds(10)).until(() -> watchStreams(url) == before);
      }
    }
  }

  private static boolean everyoneKnowsOneLeader(List<LeaderElector> electors) {
    Optional<LeaderElector> leader = electors.stream().filter(LeaderElector::isLeader).findFirst();
    if (leader.isEmpty()) {
      return false;
    }
    long token = leader.get().leadership().orElseThrow().fencingToken();
    return electors.stream().allMatch(e -> e.currentLeader().map(l -> l.fencingToken() == token).orElse(false));
  }

  /** watchStreams is how many watch streams etcd holds open, from its metrics. */
  private static double watchStreams(String url) throws Exception {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(
        URI.create(url + "/metrics").toURL().openStream(), StandardCharsets.UTF_8))) {
      return in.lines()
          .filter(l -> l.startsWith("etcd_debugging_mvcc_watch_stream_total "))
          .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
          .sum();
    }
  }
}
