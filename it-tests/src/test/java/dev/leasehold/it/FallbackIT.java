package dev.leasehold.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.Guarantee;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.etcd.EtcdLeaderElector;
import dev.leasehold.it.mariadb.MariaDbExtension;
import dev.leasehold.it.mariadb.MariaDbServer;
import dev.leasehold.jdbc.JdbcLeaderElector;
import dev.leasehold.local.LocalStore;
import dev.leasehold.micrometer.LeaseholdMetrics;
import dev.leasehold.select.Backend;
import dev.leasehold.select.Backends;
import dev.leasehold.select.FallbackElector;
import dev.leasehold.select.FallbackPolicy;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Backend selection and fallback on a real one-member etcd (stopped and started) and a real
 * mariadbd. TTL 2 s, fallbackAfter 2 s, returnAfter 1 s.
 */
@ExtendWith(MariaDbExtension.class)
class FallbackIT {
  private static final Logger log = LoggerFactory.getLogger(FallbackIT.class);
  private static final Duration TTL = Duration.ofSeconds(2);
  private static final Duration WAIT = Duration.ofSeconds(30);

  @RegisterExtension static final EtcdClusterExtension ETCD = EtcdClusterExtension.members(1);

  private final List<FallbackElector> electors = new ArrayList<>();
  private final List<EventLog> logs = new ArrayList<>();
  // Each test's local stores: closed after its electors, so their threads do not outlive it.
  private final List<LocalStore> stores = new ArrayList<>();
  private LogCapture capture;
  private String key;

  @BeforeEach
  void setUp(TestInfo info) {
    key = "/fallback-it/" + info.getTestMethod().orElseThrow().getName() + "/"
        + UUID.randomUUID().toString().substring(0, 8);
    capture = new LogCapture("dev.leasehold.select.FallbackRuntime");
  }

  @AfterEach
  void tearDown() {
    electors.forEach(FallbackElector::close);
    stores.forEach(LocalStore::close);
    capture.close();
    ETCD.cluster().restoreAll();
  }

  private LocalStore localStore() {
    LocalStore store = LocalStore.create();
    stores.add(store);
    return store;
  }

  private Backends.Builder builder(String id, Backend... backends) {
    return Backends.builder()
        .electionKey(key)
        .candidateId(id)
        .leaseTtl(TTL)
        .backends(backends)
        .etcd(EtcdLeaderElector.builder().endpoints(ETCD.cluster().clientEndpoints()))
        .fallbackAfter(TTL)
        .returnAfter(Duration.ofSeconds(1));
  }

  private FallbackElector track(FallbackElector e, String name) {
    EventLog l = new EventLog(name);
    e.onLeadershipChanged(l);
    electors.add(e);
    logs.add(l);
    return e;
  }

  private EventLog logOf(FallbackElector e) {
    return logs.get(electors.indexOf(e));
  }

  private static LeadershipEvent awaitEvent(EventLog l, Cause cause) {
    await().atMost(WAIT).until(() -> l.has(cause));
    return l.last(cause).orElseThrow();
  }

  private static Leadership awaitTerm(FallbackElector e, Guarantee g) {
    return await().atMost(WAIT).until(
        () -> e.leadership().filter(t -> t.isValid() && t.guarantee() == g), Optional::isPresent).orElseThrow();
  }

  /**
   * value is the sample of {@code name} in a Prometheus scrape whose labels include {@code
   * labels} (name, value, ...); NaN when there is none.
   */
  private static double value(PrometheusMeterRegistry registry, String name, String... labels) {
    lines:
    for (String line : registry.scrape().split("\n")) {
      if (!line.startsWith(name + "{")) {
        continue;
      }
      String set = line.substring(name.length(), line.lastIndexOf('}') + 1);
      for (int i = 0; i < labels.length; i += 2) {
        if (!set.contains(labels[i] + "=\"" + labels[i + 1] + "\"")) {
          continue lines;
        }
      }
      return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
    }
    return Double.NaN;
  }

  /** leaderSeries are the election, leading and fallback lines of a scrape, for the log. */
  private static String leaderSeries(PrometheusMeterRegistry registry) {
    return String.join("\n", registry.scrape().lines()
        .filter(l -> l.startsWith("leader_election_total{") || l.startsWith("leader_leading{")
            || l.startsWith("leader_fallback"))
        .toList());
  }

  @Test
  void failClosedWithEtcdDownAtStartStaysFollowerAndNeverLeads() {
    ETCD.cluster().member(0).stop();
    FallbackElector e = track(builder("closed", Backend.ETCD).build(), "closed");
    e.start();
    LeadershipEvent down = awaitEvent(logOf(e), Cause.STORE_UNAVAILABLE);
    log.info("fail-closed: {}", down.reason().orElseThrow());
    await().during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(7))
        .until(() -> !e.isLeader() && e.state() == ElectorState.FOLLOWER && e.leadership().isEmpty());
    assertFalse(logOf(e).has(Cause.ELECTED));
    assertFalse(logOf(e).has(Cause.FALLBACK));
    assertEquals(Optional.empty(), e.fallbackInForce());
    ETCD.cluster().restoreAll();
    assertEquals(Guarantee.DISTRIBUTED, awaitTerm(e, Guarantee.DISTRIBUTED).guarantee());
    logOf(e).assertOrderedAndPaired();
  }

  @Test
  void aLeaderOnEtcdFallsBackToLocalOnlyAfterItsTermEndedAndSaysSoLoudly() {
    FallbackElector e = track(builder("falls", Backend.ETCD, Backend.LOCAL)
        .fallback(FallbackPolicy.FALL_BACK).local(localStore()).build(), "falls");
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    LeaseholdMetrics metrics = new LeaseholdMetrics(e);
    metrics.bindTo(registry);
    e.start();
    awaitTerm(e, Guarantee.DISTRIBUTED);
    assertTrue(e.health().healthy(), e.health().toString());
    assertEquals(0.0, value(registry, "leader_fallback", "backend", "etcd"));
    assertEquals(0.0, value(registry, "leader_fallback", "backend", "local"));
    long stopped = System.nanoTime();
    ETCD.cluster().member(0).stop();

    LeadershipEvent fellBack = awaitEvent(logOf(e), Cause.FALLBACK);
    LeadershipEvent expired = logOf(e).last(Cause.LEASE_EXPIRED_LOCALLY).orElseThrow();
    assertTrue(expired.nanoTime() < fellBack.nanoTime(), "the etcd term ended before the fallback");
    assertEquals(ElectorState.FOLLOWER, fellBack.from());
    assertTrue(fellBack.nanoTime() - stopped >= TTL.toNanos(), "not before fallbackAfter");
    String reason = fellBack.reason().orElseThrow();
    assertTrue(reason.startsWith("from etcd to local: etcd unreachable for "), reason);
    Leadership local = awaitTerm(e, Guarantee.IN_PROCESS);
    assertEquals(Optional.of(Backend.LOCAL), e.fallbackInForce());
    log.info("fell back {} ms after etcd stopped: {}; local token {}",
        (fellBack.nanoTime() - stopped) / 1_000_000, reason, local.fencingToken());
    String name = "falls@" + key;
    List<String> warn = capture.lines(name).stream().filter(l -> l.startsWith("WARN ")).toList();
    assertEquals(1, warn.size(), warn.toString());
    assertTrue(warn.get(0).contains("FALLBACK from etcd to local") && warn.get(0).contains("IN_PROCESS"), warn.get(0));
    // The metrics and the health say so too: one fallback counted, one in force, not healthy.
    // The binder was bound before start(), on etcd; each event still counts under the backend
    // that produced it: the etcd term's election and loss under etcd, the local term under local.
    await().atMost(WAIT).until(() -> value(registry, "leader_fallbacks_total", "backend", "local") == 1.0
        && value(registry, "leader_election_total", "backend", "local", "result", "elected") == 1.0);
    log.info("scrape with etcd down under FALL_BACK:\n{}", leaderSeries(registry));
    assertEquals(1.0, value(registry, "leader_election_total", "backend", "etcd", "result", "elected"));
    assertEquals(1.0, value(registry, "leader_election_total", "backend", "etcd", "result", "lost"));
    assertEquals(0.0, value(registry, "leader_election_total", "backend", "local", "result", "lost"));
    assertEquals(1.0, value(registry, "leader_transitions_total", "backend", "etcd", "cause", "LEASE_EXPIRED_LOCALLY"));
    assertEquals(0.0, value(registry, "leader_fallbacks_total", "backend", "etcd"));
    assertEquals(1.0, value(registry, "leader_leading", "backend", "local"));
    assertEquals(0.0, value(registry, "leader_leading", "backend", "etcd"));
    assertEquals(1.0, value(registry, "leader_fallback", "backend", "local"));
    assertEquals(0.0, value(registry, "leader_fallback", "backend", "etcd"));
    assertEquals(Optional.of("local"), e.health().fallback());
    assertFalse(e.health().healthy(), "fallen back is not healthy");
    metrics.close();
    // FALL_BACK stays: etcd back, the elector keeps leading on local.
    ETCD.cluster().restoreAll();
    await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
        .until(() -> e.fallbackInForce().isPresent() && local.isValid());
    logOf(e).assertOrderedAndPaired();
  }

  @Test
  void etcdThenJdbcThenLocalEachFallbackCarriesItsGuarantee(MariaDbServer db) {
    ETCD.cluster().member(0).stop();
    FallbackElector e = track(builder("chain", Backend.ETCD, Backend.JDBC, Backend.LOCAL)
        .electionKey("fallback-it/chain/" + UUID.randomUUID().toString().substring(0, 8))
        .jdbc(JdbcLeaderElector.builder().jdbcUrl(db.jdbcUrl(), db.rootUser(), db.rootPassword())
            .createTable(true).allowRelaxedDurability(true))
        .local(localStore())
        .fallback(FallbackPolicy.FALL_BACK).build(), "chain");
    e.start();
    Leadership sql = awaitTerm(e, Guarantee.SINGLE_DATABASE);
    assertEquals(Optional.of(Backend.JDBC), e.fallbackInForce());
    try {
      db.stop();
      Leadership local = awaitTerm(e, Guarantee.IN_PROCESS);
      assertFalse(sql.isValid());
      assertEquals(Optional.of(Backend.LOCAL), e.fallbackInForce());
      List<String> reasons = logOf(e).events().stream().filter(x -> x.cause() == Cause.FALLBACK)
          .map(x -> x.reason().orElseThrow()).toList();
      assertEquals(2, reasons.size(), reasons.toString());
      assertTrue(reasons.get(0).startsWith("from etcd to jdbc: "), reasons.get(0));
      assertTrue(reasons.get(1).startsWith("from jdbc to local: "), reasons.get(1));
      log.info("etcd -> jdbc -> local: {}; local token {}", reasons, local.fencingToken());
    } finally {
      db.start();
    }
    logOf(e).assertOrderedAndPaired();
  }

  @Test
  void aReturnToEtcdEndsEveryLocalTermFirstAndNeverLetsTwoLeadOnEtcd() throws Exception {
    FallbackElector a = track(builder("a", Backend.ETCD, Backend.LOCAL)
        .fallback(FallbackPolicy.FALL_BACK_AND_RETURN).local(localStore()).build(), "a");
    FallbackElector b = track(builder("b", Backend.ETCD, Backend.LOCAL)
        .fallback(FallbackPolicy.FALL_BACK_AND_RETURN).local(localStore()).build(), "b");
    EtcdTerms etcdTerms = new EtcdTerms(electors);
    // Bound before start(), as Spring binds them.
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    LeaseholdMetrics metricsA = new LeaseholdMetrics(a, Tags.of("instance", "a"));
    LeaseholdMetrics metricsB = new LeaseholdMetrics(b, Tags.of("instance", "b"));
    metricsA.bindTo(registry);
    metricsB.bindTo(registry);
    try {
      ETCD.cluster().member(0).stop();
      a.start();
      b.start();
      // Two "processes", each with its own local store: both lead at once, the cost docs/backends.md states.
      Leadership localA = awaitTerm(a, Guarantee.IN_PROCESS);
      Leadership localB = awaitTerm(b, Guarantee.IN_PROCESS);
      assertTrue(localA.isValid() && localB.isValid(), "both lead on their own local store");
      await().atMost(WAIT).until(() -> value(registry, "leader_election_total",
          "instance", "b", "backend", "local", "result", "elected") == 1.0);
      log.info("scrape with etcd down under FALL_BACK_AND_RETURN:\n{}", leaderSeries(registry));
      for (String x : List.of("a", "b")) {
        assertEquals(1.0, value(registry, "leader_election_total", "instance", x, "backend", "local", "result", "elected"));
        assertEquals(0.0, value(registry, "leader_election_total", "instance", x, "backend", "etcd", "result", "elected"));
        assertEquals(1.0, value(registry, "leader_leading", "instance", x, "backend", "local"));
        assertEquals(0.0, value(registry, "leader_leading", "instance", x, "backend", "etcd"));
        assertEquals(1.0, value(registry, "leader_fallbacks_total", "instance", x, "backend", "local"));
      }

      long restarted = System.nanoTime();
      ETCD.cluster().restoreAll();
      await().atMost(WAIT).until(() -> logOf(a).has(Cause.FALLBACK_ENDED) && logOf(b).has(Cause.FALLBACK_ENDED));
      FallbackElector etcdLeader = await().atMost(WAIT).until(
          () -> electors.stream().filter(x -> x.leadership().map(t -> t.guarantee() == Guarantee.DISTRIBUTED
              && t.isValid()).orElse(false)).findFirst(), Optional::isPresent).orElseThrow();
      for (FallbackElector x : List.of(a, b)) {
        EventLog l = logOf(x);
        Leadership localTerm = x == a ? localA : localB;
        assertFalse(localTerm.isValid());
        LeadershipEvent lost = localTerm.whenLost().toCompletableFuture().get();
        assertEquals(Cause.RESIGNED, lost.cause());
        LeadershipEvent ended = l.last(Cause.FALLBACK_ENDED).orElseThrow();
        assertTrue(lost.nanoTime() <= ended.nanoTime(), "the local term ended before the return");
        assertTrue(l.events().stream().filter(ev -> ev.cause() == Cause.ELECTED && ev.nanoTime() < ended.nanoTime())
            .allMatch(ev -> ev.leadership().orElseThrow().guarantee() == Guarantee.IN_PROCESS),
            "no etcd term began before the return");
        assertEquals(Optional.empty(), x.fallbackInForce());
        String name = x.config().candidateId() + "@" + key;
        assertTrue(capture.has(name, "FALLBACK_ENDED from local to etcd"), capture.lines(name).toString());
      }
      log.info("returned to etcd: {} leads {} ms after etcd restarted", etcdLeader.config().candidateId(),
          (System.nanoTime() - restarted) / 1_000_000);
      String leader = etcdLeader.config().candidateId();
      await().atMost(WAIT).until(() -> value(registry, "leader_election_total",
          "instance", leader, "backend", "etcd", "result", "elected") == 1.0);
      log.info("scrape after the return:\n{}", leaderSeries(registry));
      for (String x : List.of("a", "b")) {
        // Each local term ended (RESIGNED by the return) and is counted under local.
        assertEquals(1.0, value(registry, "leader_election_total", "instance", x, "backend", "local", "result", "lost"));
        assertEquals(0.0, value(registry, "leader_leading", "instance", x, "backend", "local"));
        assertEquals(0.0, value(registry, "leader_fallback", "instance", x, "backend", "local"));
        assertEquals(x.equals(leader) ? 1.0 : 0.0,
            value(registry, "leader_leading", "instance", x, "backend", "etcd"));
        assertEquals(x.equals(leader) ? 1.0 : 0.0,
            value(registry, "leader_election_total", "instance", x, "backend", "etcd", "result", "elected"));
      }
      etcdLeader.resign();
      await().atMost(WAIT).until(() -> etcdTerms.count() >= 2);
    } finally {
      etcdTerms.close();
      metricsA.close();
      metricsB.close();
    }
    log.info("etcd terms sampled: {}, overlapping samples: {}", etcdTerms.count(), etcdTerms.overlaps());
    assertEquals(0, etcdTerms.overlaps(), "at most one valid etcd leadership at any sampled instant");
    logs.forEach(EventLog::assertOrderedAndPaired);
  }

  @Test
  void propertiesAndTheEnvironmentBuildEtcdAndJdbcElectorsAndNameABadValue(MariaDbServer db) throws Exception {
    FallbackElector viaEnv = track(Backends.fromEnvironment(Map.of(
        "LEASEHOLD_BACKENDS", "etcd",
        "LEASEHOLD_ETCD_ENDPOINTS", ETCD.cluster().clientEndpointsCsv(),
        "LEASEHOLD_KEY", key,
        "LEASEHOLD_TTL", "2s",
        "HOME", "/root")).build(), "env");
    viaEnv.start();
    assertEquals(Guarantee.DISTRIBUTED, viaEnv.awaitLeadership(WAIT).orElseThrow().guarantee());

    FallbackElector viaProps = track(Backends.fromProperties(Map.of(
        "leasehold.backends", "jdbc",
        "leasehold.jdbc.url", db.jdbcUrl(),
        "leasehold.jdbc.user", db.rootUser(),
        "leasehold.jdbc.password", db.rootPassword(),
        "leasehold.jdbc.create-table", "true",
        "leasehold.jdbc.allow-relaxed-durability", "true",
        "leasehold.key", "fallback-it/props/" + UUID.randomUUID().toString().substring(0, 8),
        "leasehold.ttl", "2s")).build(), "props");
    viaProps.start();
    assertEquals(Guarantee.SINGLE_DATABASE, viaProps.awaitLeadership(WAIT).orElseThrow().guarantee());

    IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> Backends.fromEnvironment(Map.of(
        "LEASEHOLD_BACKENDS", "etcd,local", "LEASEHOLD_FALLBACK", "fall-back", "LEASEHOLD_KEY", key,
        "LEASEHOLD_ETCD_ENDPOINTS", ETCD.cluster().clientEndpointsCsv(),
        "LEASEHOLD_FALLBACK_AFTER", "soon")).build());
    assertEquals("LEASEHOLD_FALLBACK_AFTER must be a duration such as 5s, 500ms, 1.5s, 2m or PT5S, but was \"soon\"",
        bad.getMessage());
    logs.forEach(EventLog::assertOrderedAndPaired);
  }
}
