package dev.leasehold.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorHealth;
import dev.leasehold.ElectorState;
import dev.leasehold.LeaderElector;
import dev.leasehold.LeaderInfo;
import dev.leasehold.LeaderTaskOutcome;
import dev.leasehold.LeaderTaskOutcome.Interruption;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.micrometer.LeaseholdMetrics;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Health, metrics, the leader-work watchdog and runWhileLeader against a real one-member etcd:
 * the watchdog hands over to a healthy instance, Prometheus shows an etcd elector's meters, and
 * an etcd outage makes health report the store unreachable and interrupts leader work before the
 * deadline.
 */
class LeaderWorkIT {
  @RegisterExtension static final EtcdClusterExtension ETCD = EtcdClusterExtension.members(1);

  private static final Duration TTL = Duration.ofSeconds(3);
  private static final Duration WAIT = Duration.ofSeconds(20);

  private Candidates candidates;
  private Client outside;
  private final ScheduledExecutorService beats = Executors.newSingleThreadScheduledExecutor();

  @BeforeEach
  void setUp(TestInfo info) {
    candidates = new Candidates(ETCD.cluster(), info.getTestMethod().orElseThrow().getName());
    outside = Client.builder().endpoints(ETCD.cluster().clientEndpoints().toArray(String[]::new)).build();
  }

  @AfterEach
  void tearDown() {
    beats.shutdownNow();
    ETCD.cluster().restoreAll();
    candidates.close();
    outside.close();
  }

  private Optional<KeyValue> keyInEtcd() throws Exception {
    List<KeyValue> kvs = outside.getKVClient()
        .get(ByteSequence.from(candidates.key, StandardCharsets.UTF_8)).get(5, TimeUnit.SECONDS).getKvs();
    return kvs.stream().findFirst();
  }

  @Test
  void aLeaderWhoseWorkStallsResignsWithWorkStalledAndAHeartbeatingOneTakesOverOnEtcd() throws Exception {
    Duration stall = Duration.ofMillis(700);
    LeaderElector silent = candidates.add("silent", TTL, b -> b.workStallTimeout(stall));
    silent.start();
    await().atMost(WAIT).until(silent::isLeader);
    Leadership first = silent.leadership().orElseThrow();
    LeaderElector beating = candidates.add("beating", TTL, b -> b.workStallTimeout(stall));
    beats.scheduleWithFixedDelay(
        () -> beating.leadership().ifPresent(Leadership::heartbeat), 0, 50, TimeUnit.MILLISECONDS);
    beating.start();

    EventLog silentLog = candidates.logOf(silent);
    await().atMost(WAIT).until(() -> silentLog.has(Cause.WORK_STALLED));
    LeadershipEvent stalled = silentLog.last(Cause.WORK_STALLED).orElseThrow();
    assertTrue(stalled.isLost());
    assertEquals(ElectorState.MASTER, stalled.from());
    assertFalse(first.isValid());
    await().atMost(WAIT).until(beating::isLeader);
    Leadership second = beating.leadership().orElseThrow();
    assertTrue(second.fencingToken() > first.fencingToken());
    // The resign revoked the lease: etcd holds the new leader's key now.
    KeyValue kv = keyInEtcd().orElseThrow();
    assertEquals(second.fencingToken(), kv.getModRevision());
    assertEquals("beating", kv.getValue().toString(StandardCharsets.UTF_8));

    // Heartbeats keep the new term for several timeouts.
    await().atMost(WAIT).during(stall.multipliedBy(4)).until(second::isValid);

    ElectorHealth lh = beating.health();
    ElectorHealth fh = silent.health();
    assertEquals("etcd", lh.backend());
    assertTrue(lh.healthy() && fh.healthy(), lh + " / " + fh);
    assertEquals(ElectorState.MASTER, lh.state());
    assertEquals(ElectorState.FOLLOWER, fh.state());
    LeaderInfo leader = beating.currentLeader().orElseThrow();
    await().atMost(WAIT).until(() -> silent.health().leader().equals(Optional.of(leader)));
    assertTrue(lh.sinceRenewal().orElseThrow().compareTo(TTL) < 0, lh.toString());
    candidates.logs.forEach(EventLog::assertOrderedAndPaired);
  }

  @Test
  void prometheusShowsARealEtcdElectorsMetersAndAnOutageShowsInHealthAndInterruptsLeaderWork()
      throws Exception {
    LeaderElector e = candidates.add("metered", TTL);
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    LeaseholdMetrics metrics = new LeaseholdMetrics(e);
    metrics.bindTo(registry);
    try {
      e.start();
      CountDownLatch running = new CountDownLatch(1);
      CompletableFuture<LeaderTaskOutcome<Boolean>> work = new CompletableFuture<>();
      Thread caller = new Thread(() -> {
        try {
          work.complete(e.runWhileLeader(l -> {
            running.countDown();
            try {
              new CountDownLatch(1).await();
              return false;
            } catch (InterruptedException stop) {
              return l.isValid();
            }
          }, Duration.ofMillis(600)));
        } catch (Throwable t) {
          work.completeExceptionally(t);
        }
      });
      caller.start();
      assertTrue(running.await(20, TimeUnit.SECONDS));
      await().atMost(WAIT).until(() -> value(registry, "leader_renewal_seconds_count", e, "role", "master").orElse(0) >= 2);
      assertEquals(1.0, value(registry, "leader_election_total", e, "result", "elected").orElseThrow());
      assertEquals(0.0, value(registry, "leader_election_total", e, "result", "failed").orElseThrow());
      assertEquals(1.0, value(registry, "leader_leading", e).orElseThrow());
      assertTrue(value(registry, "leader_time_left_seconds", e).orElseThrow() > 0);
      assertEquals(1.0, value(registry, "leader_transitions_total", e, "cause", "ELECTED").orElseThrow());
      assertEquals(0.0, value(registry, "leader_store_unavailable", e).orElseThrow());
      assertTrue(e.health().healthy());

      ETCD.cluster().member(0).stop();
      // No renewal can be confirmed: the work is interrupted while only grace is left.
      LeaderTaskOutcome<Boolean> out = work.get(20, TimeUnit.SECONDS);
      assertEquals(Optional.of(Interruption.DEADLINE_NEAR), out.interruption());
      assertTrue(out.value().orElseThrow(), "interrupted while the term still held");
      await().atMost(WAIT).until(() -> !e.health().storeReachable());
      ElectorHealth down = e.health();
      assertFalse(down.healthy());
      assertTrue(down.storeFailure().isPresent(), down.toString());
      await().atMost(WAIT).until(() -> value(registry, "leader_store_unavailable", e).orElse(0) == 1
          && value(registry, "leader_store_outages_total", e).orElse(0) == 1);
      assertEquals(0.0, value(registry, "leader_leading", e).orElseThrow());

      ETCD.cluster().restoreAll();
      await().atMost(WAIT).until(() -> e.isLeader() && e.health().healthy());
      await().atMost(WAIT).until(() -> value(registry, "leader_store_unavailable", e).orElse(1) == 0
          && value(registry, "leader_election_total", e, "result", "elected").orElse(0) == 2);
      String text = registry.scrape();
      assertTrue(text.contains("leader_election_total{backend=\"etcd\",key=\"" + candidates.key
          + "\",result=\"elected\"} 2.0"), text);
    } finally {
      metrics.close();
      registry.close();
    }
  }

  // ---- reading the exposition ----

  private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)\\{([^}]*)\\} (\\S+)$");
  private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

  private static OptionalDouble value(
      PrometheusMeterRegistry registry, String name, LeaderElector e, String... labels) {
    Map<String, String> want = new TreeMap<>();
    want.put("backend", "etcd");
    want.put("key", e.config().electionKey());
    for (int i = 0; i < labels.length; i += 2) {
      want.put(labels[i], labels[i + 1]);
    }
    for (String line : registry.scrape().split("\n")) {
      Matcher m = SAMPLE.matcher(line);
      if (!m.matches() || !m.group(1).equals(name)) {
        continue;
      }
      Map<String, String> got = new TreeMap<>();
      Matcher l = LABEL.matcher(m.group(2));
      while (l.find()) {
        got.put(l.group(1), l.group(2));
      }
      if (got.equals(want)) {
        return OptionalDouble.of(Double.parseDouble(m.group(3)));
      }
    }
    return OptionalDouble.empty();
  }
}
