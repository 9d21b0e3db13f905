package dev.leasehold.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.leasehold.LeadershipEvent.Cause;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * After a whole-cluster etcd outage of a minute, a leader is back within a bound of etcd's return that does not grow
 * with the outage. Two things used to make it grow: gRPC's own reconnect backoff (1 s growing by 1.6 up to 120 s; after
 * a 50 s outage the electors took 25 to 28 s to come back), which the elector now cuts short by replacing a client
 * that cannot connect, at most once per maximum backoff; and the old MASTER's lease, which etcd restores with a fresh
 * TTL when the member starts again, while the elector had given up revoking it after twice its TTL: now it keeps
 * trying, and its revoke deletes the key as soon as etcd answers.
 */
class EtcdOutageRecoveryIT {
  static final Logger log = LoggerFactory.getLogger(EtcdOutageRecoveryIT.class);
  /**
   * Longer than the bound below: a key left bound to the old MASTER's restored lease (etcd gives it a fresh TTL at
   * start) would keep everyone out for a TTL and break the bound; with TTL 3 s it just fit (4.4 s).
   */
  static final Duration TTL = Duration.ofSeconds(5);
  static final Duration POLL = Duration.ofMillis(500);
  static final Duration MAX_BACKOFF = Duration.ofSeconds(1);
  static final Duration OUTAGE = Duration.ofSeconds(60);
  /**
   * The bound once etcd serves again: a client reconnects within two maximum backoffs (its next call after the
   * rebuild period), the old MASTER's revoke retry (at most a maximum backoff apart) deletes the restored key, a
   * follower sees the key gone (watch, or its next read at most a poll interval away), then a grant and a campaign;
   * 2 s of slack covers those round trips and etcd's election at start on a loaded machine.
   */
  static final Duration BOUND = MAX_BACKOFF.multipliedBy(2).plus(POLL).plusSeconds(2);

  @RegisterExtension static final EtcdClusterExtension ETCD = EtcdClusterExtension.members(1);

  Candidates candidates;

  @BeforeEach
  void setUp(TestInfo info) {
    candidates = new Candidates(ETCD.cluster(), info.getTestMethod().orElseThrow().getName());
  }

  @AfterEach
  void tearDown() {
    candidates.close();
    ETCD.cluster().restoreAll();
  }

  @Test
  void aLeaderIsBackWithinTwoMaximumBackoffsOfEtcdsReturnAfterAMinuteLongOutage() {
    for (String id : new String[] {"a", "b", "c"}) {
      candidates.add(id, TTL, b -> b.retryBackoff(Duration.ofMillis(100), MAX_BACKOFF));
    }
    candidates.startAll();
    // A loaded machine can take seconds for a fresh client's first calls (its etcd is niced with the build).
    await().atMost(Duration.ofSeconds(30)).until(() -> candidates.leader().isPresent());
    EtcdMember member = ETCD.cluster().member(0);
    member.stop();
    long stopped = System.nanoTime();
    await().atMost(TTL.plusSeconds(2)).until(() -> candidates.leaderCount() == 0);
    Duration left = OUTAGE.minusNanos(System.nanoTime() - stopped);
    // Nobody leads while etcd is down; this also waits out the minute.
    await().during(left).atMost(left.plusSeconds(5)).until(() -> candidates.leaderCount() == 0);
    long starting = System.nanoTime();
    member.start();
    long back = System.nanoTime();
    log.info("etcd stopped for {} s; it served again {} ms after its start began", (back - stopped) / 1_000_000_000L,
        (back - starting) / 1_000_000);
    await().atMost(BOUND).pollInterval(Duration.ofMillis(10)).until(() -> candidates.leader().isPresent());
    long recovered = System.nanoTime() - back;
    log.info("a leader was back {} ms after etcd served again, {} ms after its start began (bound {} ms from serving:"
            + " 2 x maxBackoff {} ms + poll {} ms + 2 s)", recovered / 1_000_000, (System.nanoTime() - starting) / 1_000_000,
        BOUND.toMillis(), MAX_BACKOFF.toMillis(), POLL.toMillis());
    await().atMost(BOUND).until(() -> candidates.logs.stream().allMatch(l -> l.has(Cause.STORE_RECOVERED)));
    for (EventLog l : candidates.logs) {
      l.assertOrderedAndPaired();
      // Counted from the stop: a slow cold start before it may have been an outage of its own.
      long reports = l.events().stream()
          .filter(e -> e.cause() == Cause.STORE_UNAVAILABLE && e.nanoTime() >= stopped).count();
      assertEquals(1, reports, "one outage, one report: " + l.events());
    }
  }
}
