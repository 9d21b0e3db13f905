package dev.leasehold.select;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorConfig;
import dev.leasehold.ElectorHealth;
import dev.leasehold.LeaderElector;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.Renewal;
import dev.leasehold.local.LocalLeaderElector;
import dev.leasehold.local.LocalStore;
import dev.leasehold.runtime.ThreadScheduler;
import dev.leasehold.micrometer.LeaseholdMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A fallback elector's health names the fallback in force and is not healthy while it lasts;
 * its renewals and the fallback meters come through. Two in-process stores stand for etcd and
 * the local backend, as in {@link FallbackRuntimeTest}.
 */
class FallbackHealthTest {
  private static final Duration TTL = Duration.ofSeconds(1);
  private static final Duration SOON = Duration.ofSeconds(10);
  private static final String KEY = "/fallback-health";

  private final LocalStore preferred = LocalStore.create();
  private final LocalStore fallback = LocalStore.create();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private FallbackRuntime elector;

  @AfterEach
  void closeEverything() {
    if (elector != null) {
      elector.close();
    }
    preferred.close();
    fallback.close();
    registry.close();
  }

  private static Supplier<LeaderElector> on(LocalStore store, String key) {
    ElectorConfig c = ElectorConfig.builder().electionKey(key).candidateId("me").leaseTtl(TTL).build();
    return () -> LocalLeaderElector.builder().store(store).config(c).build();
  }

  @Test
  void aFallbackIsInTheHealthAndTheMetersUntilTheReturn() {
    ElectorConfig c = ElectorConfig.builder().electionKey(KEY).candidateId("me").leaseTtl(TTL).build();
    List<BackendTier> tiers = List.of(
        new BackendTier(Backend.ETCD, on(preferred, KEY), on(preferred, KEY + ".fallback-probe")),
        new BackendTier(Backend.LOCAL, on(fallback, KEY), null));
    elector = new FallbackRuntime(c, tiers, FallbackPolicy.FALL_BACK_AND_RETURN, TTL,
        Duration.ofMillis(300), new ThreadScheduler(), "me@" + KEY);
    LeaseholdMetrics metrics = new LeaseholdMetrics(elector);
    metrics.bindTo(registry);
    List<Renewal> renewals = new CopyOnWriteArrayList<>();
    elector.onRenewal(renewals::add);
    assertFalse(elector.health().running());

    preferred.faults().makeUnavailable();
    elector.start();
    await().atMost(SOON).until(elector::isLeader);
    assertEquals(Optional.of(Backend.LOCAL), elector.fallbackInForce());
    ElectorHealth h = elector.health();
    assertEquals(Optional.of("local"), h.fallback());
    assertEquals("local", h.backend());
    assertTrue(h.storeReachable(), "the fallback store answers: " + h);
    assertTrue(h.running());
    assertFalse(h.healthy(), "fallen back is not healthy");
    // Each backend has its meters; the fallback's show it in force and count its one FALLBACK.
    assertEquals(1.0, registry.get("leader.fallback").tag("backend", "local").gauge().value());
    assertEquals(0.0, registry.get("leader.fallback").tag("backend", "etcd").gauge().value());
    await().atMost(SOON).until(
        () -> registry.get("leader.fallbacks").tag("backend", "local").counter().count() == 1);
    await().atMost(SOON).until(() -> !renewals.isEmpty());

    preferred.faults().makeAvailable();
    await().atMost(SOON).until(() -> elector.fallbackInForce().isEmpty() && elector.isLeader());
    await().atMost(SOON).until(() -> elector.health().healthy());
    assertEquals("etcd", elector.health().backend());
    for (String backend : List.of("etcd", "local")) {
      assertEquals(0.0, registry.get("leader.fallback").tag("backend", backend).gauge().value());
    }
    assertEquals(1.0, registry.get("leader.fallbacks").tag("backend", "local").counter().count(),
        "one fallback, counted once");
    assertEquals(0.0, registry.get("leader.fallbacks").tag("backend", "etcd").counter().count());
    await().atMost(SOON).until(() -> registry.find("leader.transitions").tag("backend", "etcd")
        .tag("cause", Cause.ELECTED.name()).counter() != null);
    assertEquals(1.0, registry.get("leader.transitions").tag("backend", "local")
        .tag("cause", Cause.ELECTED.name()).counter().count(), "elected on the fallback store");
    assertEquals(1.0, registry.get("leader.transitions").tag("backend", "etcd")
        .tag("cause", Cause.ELECTED.name()).counter().count(), "then again on the preferred one");
    metrics.close();
  }
}
