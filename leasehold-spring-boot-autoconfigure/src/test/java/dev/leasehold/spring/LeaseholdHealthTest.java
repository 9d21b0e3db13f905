package dev.leasehold.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.leasehold.LeaderElector;
import dev.leasehold.local.LocalStore;
import dev.leasehold.micrometer.LeaseholdMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/** The health indicator and the info contributor, on the local backend. */
class LeaseholdHealthTest {
  private final LocalStore store = LocalStore.create();

  @AfterEach
  void closeStore() {
    store.close();
  }

  @Test
  void aLeaderIsUpAStoreOutageIsDownAndAClosedElectorIsOutOfService() {
    Fixtures.runner(store).run(context -> {
      LeaseholdHealthIndicator health = context.getBean("leaseholdHealthIndicator", LeaseholdHealthIndicator.class);
      LeaderElector elector = context.getBean(LeaderElector.class);
      long token = elector.awaitLeadership(Duration.ofSeconds(10)).orElseThrow().fencingToken();
      Health up = health.health();
      assertThat(up.getStatus()).isEqualTo(Status.UP);
      assertThat(up.getDetails()).containsEntry("state", "MASTER").containsEntry("leaderId", "context")
          .containsEntry("fencingToken", token).containsEntry("guarantee", "IN_PROCESS")
          .containsEntry("leader", true);

      store.faults().makeUnavailable();
      await().atMost(Duration.ofSeconds(5)).until(() -> health.health().getStatus().equals(Status.DOWN));
      assertThat(health.health().getDetails()).containsEntry("store", "unavailable")
          .containsKey("reason").containsEntry("backend", "local");

      store.faults().makeAvailable();
      await().atMost(Duration.ofSeconds(10)).until(() -> health.health().getStatus().equals(Status.UP));

      context.getBean(ElectorLifecycle.class).stop();
      assertThat(health.health().getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
    });
  }

  @Test
  void micrometerOnTheClassPathBindsTheElectorsMeters() {
    Fixtures.runner(store).run(context -> {
      LeaderElector elector = context.getBean(LeaderElector.class);
      elector.awaitLeadership(Duration.ofSeconds(10)).orElseThrow();
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      context.getBean(LeaseholdMetrics.class).bindTo(registry);
      assertThat(registry.get("leader.leading").gauge().value()).isEqualTo(1.0);
      // Counters count from the binding on: a resignation is a transition by RESIGNED, and the
      // re-election after the hold-off (no other candidate) an election.
      elector.resign();
      await().atMost(Duration.ofSeconds(10)).until(
          () -> registry.get("leader.election").tag("result", "elected").counter().count() == 1.0);
      assertThat(registry.get("leader.transitions").tag("cause", "RESIGNED").counter().count()).isEqualTo(1.0);
    });
  }

  @Test
  void aFollowerIsUpAndNamesTheLeader() throws Exception {
    LeaderElector outsider = Fixtures.outsider(store);
    try {
      Fixtures.runner(store).run(context -> {
        LeaseholdHealthIndicator health = context.getBean(LeaseholdHealthIndicator.class);
        await().atMost(Duration.ofSeconds(5)).until(() -> health.health().getDetails().containsKey("leaderId"));
        assertThat(health.health().getStatus()).isEqualTo(Status.UP);
        assertThat(health.health().getDetails()).containsEntry("state", "FOLLOWER")
            .containsEntry("leaderId", "outsider").containsEntry("leader", false);

        Info.Builder info = new Info.Builder();
        context.getBean(LeaseholdInfoContributor.class).contribute(info);
        @SuppressWarnings("unchecked")
        Map<String, Object> leasehold = (Map<String, Object>) info.build().getDetails().get("leasehold");
        assertThat(leasehold).containsEntry("activeBackend", "local").containsEntry("fallback", "fail-closed").containsEntry("key", Fixtures.KEY)
            .containsEntry("candidateId", "context").containsEntry("leaderId", "outsider");
      });
    } finally {
      outsider.close();
    }
  }

  @Test
  void aFallbackInForceIsDownAndSaysWhereElectionsRun() {
    // etcd at a port nothing listens on: after leasehold.fallback.after the elector falls back.
    Fixtures.runner(store)
        .withPropertyValues("leasehold.backends=etcd,local", "leasehold.fallback=fall-back",
            "leasehold.fallback.after=2s", "leasehold.etcd.endpoints=http://127.0.0.1:1")
        .run(context -> {
          LeaseholdHealthIndicator health = context.getBean(LeaseholdHealthIndicator.class);
          LeaderElector elector = context.getBean(LeaderElector.class);
          assertThat(elector.awaitLeadership(Duration.ofSeconds(20)).orElseThrow().guarantee())
              .isEqualTo(dev.leasehold.Guarantee.IN_PROCESS);
          Health h = health.health();
          assertThat(h.getStatus()).isEqualTo(Status.DOWN);
          assertThat(h.getDetails()).containsEntry("fallback", "local").containsEntry("preferredBackend", "etcd")
              .containsEntry("backend", "local").containsEntry("state", "MASTER")
              .containsEntry("guarantee", "IN_PROCESS");
        });
  }

  @Test
  void theHealthIndicatorCanBeTurnedOff() {
    Fixtures.runner(store).withPropertyValues("management.health.leasehold.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean(LeaseholdHealthIndicator.class));
  }
}
