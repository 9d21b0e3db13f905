package dev.leasehold.select;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorConfig;
import dev.leasehold.ElectorState;
import dev.leasehold.LeaderElector;
import dev.leasehold.etcd.EtcdLeaderElector;
import dev.leasehold.etcd.EtcdSession;
import dev.leasehold.etcd.EtcdSettings;
import dev.leasehold.jdbc.JdbcLeaderElector;
import dev.leasehold.jdbc.JdbcSettings;
import dev.leasehold.local.LocalLeaderElector;
import dev.leasehold.local.LocalStore;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each backend is made from two values, the neutral config and its own settings; nobody's builder is changed. */
class SettingsValuesTest {
  private static final ElectorConfig CONFIG =
      ElectorConfig.builder().electionKey("jobs").candidateId("me").leaseTtl(Duration.ofSeconds(2)).build();

  private static String refused(Runnable r) {
    return assertThrows(IllegalArgumentException.class, r::run).getMessage();
  }

  @Test
  void eachBackendIsMadeFromTheConfigAndItsSettingsValue() {
    EtcdSettings etcd = EtcdSettings.builder().endpoints("http://127.0.0.1:2379").build();
    JdbcSettings jdbc = JdbcSettings.builder().jdbcUrl("jdbc:mariadb://127.0.0.1:1/db", "app", "pw").build();
    try (LocalStore store = LocalStore.create()) {
      for (LeaderElector e : new LeaderElector[] {
          EtcdLeaderElector.of(CONFIG, etcd), EtcdLeaderElector.of(CONFIG, etcd),
          JdbcLeaderElector.of(CONFIG, jdbc), LocalLeaderElector.of(CONFIG, store)}) {
        assertEquals(ElectorState.FOLLOWER, e.state(), "built, not started");
        assertEquals("me", e.config().candidateId());
        assertEquals(Duration.ofSeconds(2), e.config().leaseTtl());
        e.close();
      }
    }
    EtcdSession.of(ElectorConfig.builder().electionKey("/p/").build(), etcd).close();
  }

  @Test
  void aConfigMadeElsewhereMeetsEachStoresOwnRulesWithTheBuildersMessages() {
    ElectorConfig halfSeconds = ElectorConfig.builder().electionKey("a b").leaseTtl(Duration.ofMillis(2500)).build();
    EtcdSettings etcd = EtcdSettings.builder().endpoints("http://127.0.0.1:2379").build();
    assertEquals("leaseTtl must be a whole number of seconds (etcd grants seconds), but was 2.5s",
        refused(() -> EtcdLeaderElector.of(halfSeconds, etcd)));
    assertEquals("leaseTtl must be a whole number of seconds (etcd grants seconds), but was 2.5s",
        refused(() -> EtcdSession.of(halfSeconds, etcd)));
    assertEquals("electionKey must match [A-Za-z0-9._/-]{1,128} (it is the lease row's name), but was \"a b\"",
        refused(() -> JdbcLeaderElector.of(halfSeconds, JdbcSettings.builder().jdbcUrl("jdbc:x:", null, null).build())));
    try (LocalStore store = LocalStore.create()) {
      assertEquals("leaseTtl must be a whole number of seconds (the local store grants seconds, as etcd does),"
          + " but was 2.5s", refused(() -> LocalLeaderElector.of(halfSeconds, store)));
    }
    assertEquals("settings must be set, but was null", refused(() -> EtcdLeaderElector.of(CONFIG, null)));
    assertEquals("config must be set, but was null", refused(() -> JdbcLeaderElector.of(null, null)));
  }

  @Test
  void backendsReadsABuildersSettingsAtTheCallAndNeverChangesThatBuilder() {
    EtcdLeaderElector.Builder etcd = EtcdLeaderElector.builder().endpoints("http://127.0.0.1:2379");
    Backends.Builder b = Backends.builder().electionKey("/k").backends(Backend.ETCD).etcd(etcd);
    etcd.endpoints("not-a-url");
    FallbackElector e = b.build();
    e.close();
    FallbackElector again = b.build();
    again.close();
    // The neutral settings stay the caller's: Backends set none of them on its builder.
    assertEquals("electionKey must be a non-blank string, but was null", refused(etcd.endpoints("http://h:1")::build));
    // A builder's problem is reported by build(), after the checks that come first.
    Backends.Builder bad = Backends.builder().electionKey("jobs").backends(Backend.JDBC, Backend.LOCAL)
        .jdbc(JdbcLeaderElector.builder().table("a;b"));
    assertTrue(refused(bad::build).startsWith("backends must name one backend under fallback fail-closed"));
    bad.fallback(FallbackPolicy.FALL_BACK);
    assertTrue(refused(bad::build).startsWith("jdbcUrl must be a JDBC URL"), refused(bad::build));
  }

  @Test
  void propertiesNameAPropertyLeftUnsetAndTakeBareSecondsAndTheEtcdTlsChoices() {
    PropertyException missing = assertThrows(PropertyException.class,
        () -> Backends.fromProperties(Map.of("leasehold.backends", "local")).build());
    assertEquals("leasehold.key must be a non-blank string, but was null", missing.getMessage());
    assertEquals("leasehold.key", missing.property());
    assertEquals(" must be a non-blank string, but was null", missing.problem());

    FallbackElector e = Backends.fromProperties(Map.of("leasehold.backends", "local", "leasehold.key", "/k",
        "leasehold.ttl", "2", "leasehold.rpc-timeout", "0.25")).build();
    assertEquals(Duration.ofSeconds(2), e.config().leaseTtl());
    assertEquals(Duration.ofMillis(250), e.config().rpcTimeout());
    e.close();

    PropertyException both = assertThrows(PropertyException.class, () -> Backends.fromProperties(Map.of(
        "leasehold.backends", "etcd", "leasehold.key", "/k", "leasehold.etcd.endpoints", "https://127.0.0.1:2379",
        "leasehold.etcd.tls.ca", "ca.pem", "leasehold.etcd.tls.jvm-default-trust", "true")).build());
    assertEquals("leasehold.etcd.tls.jvm-default-trust must be false when leasehold.etcd.tls.ca is set (trust one"
        + " or the other), but was true", both.getMessage());
    PropertyException key = assertThrows(PropertyException.class, () -> Backends.fromProperties(Map.of(
        "leasehold.backends", "etcd", "leasehold.key", "/k", "leasehold.etcd.endpoints", "https://127.0.0.1:2379",
        "leasehold.etcd.tls.jvm-default-trust", "true", "leasehold.etcd.tls.client-certificate",
        "src/test/resources/tls/client.pem", "leasehold.etcd.tls.client-key", "src/test/resources/tls/other.key"))
        .build());
    assertEquals("leasehold.etcd.tls.client-key", key.property());
    assertTrue(key.problem().startsWith(" must be the key of the first certificate in certificateChain"), key.problem());
    assertTrue(Backends.propertyNames().contains("leasehold.etcd.tls.jvm-default-trust"));
  }

  @Test
  void theRenewalIntervalOfEachBackendIsPublic() {
    ElectorConfig ttl5 = ElectorConfig.builder().electionKey("k").leaseTtl(Duration.ofSeconds(5)).build();
    // etcd: as late as leaves 2 s of the 4.45 s window (TTL x 0.99 - 0.5 s margin).
    assertEquals(Duration.ofMillis(2450), EtcdLeaderElector.renewInterval(ttl5));
    assertEquals(Duration.ofSeconds(5).dividedBy(6), JdbcLeaderElector.renewInterval(ttl5));
  }

  @Test
  void theBuilderHandsOutTheEtcdSettingsItHoldsForAnApplicationClient() {
    Backends.Builder b = Backends.fromProperties(Map.of(
        "leasehold.backends", "etcd", "leasehold.key", "/jobs",
        "leasehold.etcd.endpoints", "http://127.0.0.1:2379,http://127.0.0.1:2381"));
    EtcdSettings etcd = b.etcdSettings().orElseThrow();
    assertEquals("EtcdSettings{endpoints=[http://127.0.0.1:2379, http://127.0.0.1:2381]}", etcd.toString());
    // A client is made from them (it connects at its first call; none is made here).
    etcd.clientBuilder().build().close();
    assertTrue(Backends.builder().etcdSettings().isEmpty(), "none given");
    assertEquals("leasehold.etcd.endpoints=\"localhost\": endpoints[0] must be a URL like"
            + " http://127.0.0.1:2379 (scheme must be http or https), but was \"localhost\"",
        refused(() -> Backends.fromProperties(Map.of("leasehold.backends", "etcd", "leasehold.key", "/jobs",
            "leasehold.etcd.endpoints", "localhost")).etcdSettings()));
    try (io.etcd.jetcd.Client given = io.etcd.jetcd.Client.builder().endpoints("http://127.0.0.1:2379").build()) {
      IllegalStateException e = assertThrows(IllegalStateException.class,
          () -> EtcdSettings.builder().client(given).build().clientBuilder());
      assertEquals("clientBuilder needs settings made from endpoints, but these hold a client given with"
          + " client(...)", e.getMessage());
    }
  }
}
