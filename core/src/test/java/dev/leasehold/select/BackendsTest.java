package dev.leasehold.select;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.Guarantee;
import dev.leasehold.Leadership;
import dev.leasehold.etcd.EtcdLeaderElector;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Building from code, properties and the environment; every bad input names its property and value. */
class BackendsTest {
  private static Map<String, String> props(String... kv) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  private static void assertStarts(String prefix, String message) {
    assertTrue(message.startsWith(prefix), message);
  }

  private static String refused(Map<String, String> properties) {
    return assertThrows(IllegalArgumentException.class, () -> Backends.fromProperties(properties).build())
        .getMessage();
  }

  private static Map<String, String> etcdThenLocal(String... more) {
    Map<String, String> m = props(
        "leasehold.backends", "etcd, local",
        "leasehold.fallback", "fall-back-and-return",
        "leasehold.etcd.endpoints", "http://127.0.0.1:2379,http://127.0.0.1:2381",
        "leasehold.key", "/leasehold/orders");
    m.putAll(props(more));
    return m;
  }

  @Test
  void aJobSessionTakesTheElectorsSettingsButNotItsPlacement() {
    Backends.Builder b = Backends.fromProperties(props(
        "leasehold.backends", "etcd", "leasehold.etcd.endpoints", "http://127.0.0.1:2379",
        "leasehold.key", "/leasehold/orders", "leasehold.ttl", "3s", "leasehold.priority", "10",
        "leasehold.preempt-after", "30s"));
    b.healthCheck(() -> true);
    // The elector keeps its priority; the session of keyed jobs, which a session refuses to
    // carry, is placed by spreading instead.
    FallbackElector elector = b.build();
    dev.leasehold.etcd.EtcdSession jobs = b.spreadingSession("/leasehold/orders/jobs/", 2);
    try {
      assertEquals(10, elector.config().priority());
      assertEquals("/leasehold/orders/jobs/", jobs.prefix());
    } finally {
      jobs.close();
      elector.close();
    }
  }

  @Test
  void propertiesNameTheBackendsInOrderThePolicyAndTheNeutralSettings() {
    FallbackElector e = Backends.fromProperties(etcdThenLocal(
        "leasehold.ttl", "2s", "leasehold.fallback.after", "5s", "leasehold.fallback.return-after", "1500ms",
        "leasehold.candidate-id", "node-1", "leasehold.rpc-timeout", "PT0.5S", "leasehold.standby-lease", "false",
        "leasehold.retry-backoff.max", "2s", "unrelated.key", "ignored")).build();
    try {
      assertEquals(List.of(Backend.ETCD, Backend.LOCAL), e.backends());
      assertEquals(FallbackPolicy.FALL_BACK_AND_RETURN, e.policy());
      assertEquals(Duration.ofSeconds(5), e.fallbackAfter());
      assertEquals(Duration.ofMillis(1500), e.returnAfter());
      assertEquals(Duration.ofSeconds(2), e.config().leaseTtl());
      assertEquals(Duration.ofMillis(500), e.config().rpcTimeout());
      assertEquals(Duration.ofSeconds(2), e.config().retryBackoffMax());
      assertFalse(e.config().standbyLease());
      assertEquals("node-1", e.config().candidateId());
      assertEquals(Backend.ETCD, e.activeBackend());
      assertEquals(Optional.empty(), e.fallbackInForce());
    } finally {
      e.close();
    }
  }

  @Test
  void theEnvironmentUsesThePropertyNamesInUpperCaseWithUnderscores() {
    Map<String, String> env = props(
        "LEASEHOLD_BACKENDS", "etcd,local", "LEASEHOLD_FALLBACK", "FALL_BACK",
        "LEASEHOLD_ETCD_ENDPOINTS", "http://127.0.0.1:2379", "LEASEHOLD_KEY", "/k",
        "LEASEHOLD_FALLBACK_AFTER", "1m", "LEASEHOLD_FALLBACK_RETURN_AFTER", "0s", "PATH", "/usr/bin",
        "LEASEHOLD_FENCING_TOKEN", "7");
    FallbackElector e = Backends.fromEnvironment(env).build();
    assertEquals(List.of(Backend.ETCD, Backend.LOCAL), e.backends());
    assertEquals(FallbackPolicy.FALL_BACK, e.policy());
    assertEquals(Duration.ofMinutes(1), e.fallbackAfter());
    assertEquals(Duration.ZERO, e.returnAfter());
    e.close();
    assertEquals("LEASEHOLD_FALLBACK_RETURN_AFTER", BackendProperties.envName("leasehold.fallback.return-after"));
  }

  @Test
  void badValuesAreRefusedNamingThePropertyAndTheValue() {
    assertEquals("leasehold.ttl must be a duration such as 5s, 500ms, 1.5s, 2m or PT5S, but was \"five\"",
        refused(etcdThenLocal("leasehold.ttl", "five")));
    assertEquals("leasehold.ttl=\"200ms\": leaseTtl must be >= 1s, but was 200ms",
        refused(etcdThenLocal("leasehold.ttl", "200ms")));
    assertEquals("leasehold.backends must be a comma-separated list of etcd, jdbc, local, but was"
        + " \"etcd,zookeeper\" (\"zookeeper\" is none of them)",
        refused(etcdThenLocal("leasehold.backends", "etcd,zookeeper")));
    assertEquals("leasehold.fallback must be one of fail-closed, fall-back, fall-back-and-return, but was \"maybe\"",
        refused(etcdThenLocal("leasehold.fallback", "maybe")));
    assertEquals("leasehold.standby-lease must be true or false, but was \"yes\"",
        refused(etcdThenLocal("leasehold.standby-lease", "yes")));
    assertEquals("leasehold.max-drift-rate must be a number such as 0.01, but was \"1%\"",
        refused(etcdThenLocal("leasehold.max-drift-rate", "1%")));
    assertEquals("leasehold.key must not be empty, but was \" \"", refused(etcdThenLocal("leasehold.key", " ")));
    assertStarts("leasehold.etcd.endpoints=\"localhost:2379\": endpoints[0] must be a URL like",
        refused(etcdThenLocal("leasehold.etcd.endpoints", "localhost:2379")));
    assertStarts("leasehold.etcd.endpoint is not a Leasehold property (known: leasehold.backends,",
        refused(etcdThenLocal("leasehold.etcd.endpoint", "http://x:2379")));
    assertEquals("leasehold.fallback.after=\"1s\": fallbackAfter must be >= leaseTtl (5s: a shorter outage is"
        + " one a leader rides out), but was 1s", refused(etcdThenLocal("leasehold.fallback.after", "1s")));
    String env = assertThrows(IllegalArgumentException.class,
        () -> Backends.fromEnvironment(props("LEASEHOLD_BACKENDS", "local", "LEASEHOLD_KEY", "/k",
            "LEASEHOLD_TTL", "5 sec")).build()).getMessage();
    assertEquals("LEASEHOLD_TTL must be a duration such as 5s, 500ms, 1.5s, 2m or PT5S, but was \"5 sec\"", env);
  }

  @Test
  void aJdbcUrlNoDriverAcceptsIsRefusedAtBuildAndPasswordsAreNeverEchoed() {
    String m = refused(props("leasehold.backends", "jdbc", "leasehold.key", "jobs",
        "leasehold.jdbc.url", "jdbc:nosuchdb://db:3306/app", "leasehold.jdbc.password", "s3cret"));
    assertTrue(m.startsWith("leasehold.jdbc.url must be a URL a JDBC driver on the class path accepts"), m);
    assertTrue(m.contains("\"jdbc:nosuchdb://db:3306/app\""), m);
    assertFalse(m.contains("s3cret"), m);
    String etcd = refused(props("leasehold.backends", "etcd", "leasehold.key", "/k",
        "leasehold.etcd.endpoints", "http://127.0.0.1:2379", "leasehold.etcd.password", "s3cret"));
    assertTrue(etcd.startsWith("leasehold.etcd.password=(hidden): credentials user must be"), etcd);
    assertFalse(etcd.contains("s3cret"), etcd);
  }

  @Test
  void aPolicyMustFitTheNumberOfBackendsAndEachListedBackendNeedsItsSettings() {
    assertStarts("leasehold.backends=\"etcd, local\": backends must name one backend under fallback fail-closed",
        refused(etcdThenLocal("leasehold.fallback", "fail-closed")));
    assertStarts("leasehold.backends=\"local\": backends must name at least two backends under fallback fall-back",
        refused(props("leasehold.backends", "local", "leasehold.fallback", "fall-back", "leasehold.key", "/k")));
    assertStarts("leasehold.backends=\"etcd\": backends names etcd, so etcd settings must be given with",
        refused(props("leasehold.backends", "etcd", "leasehold.key", "/k")));
    assertStarts("leasehold.backends=\"local\": backends does not name etcd, so etcd settings must not be given",
        refused(props("leasehold.backends", "local", "leasehold.key", "/k",
        "leasehold.etcd.endpoints", "http://127.0.0.1:2379")));
    assertTrue(refused(props("leasehold.backends", "etcd,etcd", "leasehold.key", "/k"))
        .contains("backends must name each backend once, but was [etcd, etcd]"));
    String code = assertThrows(IllegalArgumentException.class, () -> Backends.builder()
        .electionKey("/k").backends(Backend.ETCD, Backend.LOCAL).etcd(EtcdLeaderElector.builder()).build())
        .getMessage();
    assertTrue(code.startsWith("backends must name one backend under fallback fail-closed"), code);
  }

  @Test
  void aLocalOnlyElectorFromCodeLeadsWithAnInProcessGuarantee() throws Exception {
    FallbackElector e = Backends.builder().electionKey("/backends-test").leaseTtl(Duration.ofSeconds(1))
        .backends(Backend.LOCAL).build();
    try {
      e.start();
      Leadership term = e.awaitLeadership(Duration.ofSeconds(10)).orElseThrow();
      assertEquals(Guarantee.IN_PROCESS, term.guarantee());
      assertTrue(Backends.sharedLocalStore().isCurrentTerm(term));
      assertTrue(e.isLeader());
    } finally {
      e.close();
    }
    assertFalse(e.isLeader());
  }
}
