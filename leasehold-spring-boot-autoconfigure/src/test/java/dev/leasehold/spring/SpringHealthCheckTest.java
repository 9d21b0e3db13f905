package dev.leasehold.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.leasehold.LeaderElector;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.local.LocalLeaderElector;
import dev.leasehold.local.LocalStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The starter's health checks on the local backend: a context whose readiness turns to
 * REFUSING_TRAFFIC, or whose named HealthIndicator goes DOWN, hands its term to the healthy
 * instance outside it (cause UNHEALTHY); a misnamed setting fails at start naming the property.
 */
class SpringHealthCheckTest {
  private final LocalStore store = LocalStore.create();

  @AfterEach
  void closeStore() {
    store.close();
  }

  /** rival is a healthy candidate outside the context, queued behind it. */
  private LeaderElector rival() {
    LeaderElector e = LocalLeaderElector.builder().store(store).electionKey(Fixtures.KEY).candidateId("rival")
        .leaseTtl(Duration.ofSeconds(2)).build();
    e.start();
    return e;
  }

  @Test
  void aContextThatStopsAcceptingTrafficHandsItsTermToTheRival() {
    Fixtures.runner(store)
        .withConfiguration(AutoConfigurations.of(ApplicationAvailabilityAutoConfiguration.class))
        .withPropertyValues("leasehold.health-check.readiness=true", "leasehold.health-check-interval=20ms")
        .run(context -> {
          AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
          LeaderElector elector = context.getBean(LeaderElector.class);
          List<LeadershipEvent> events = new CopyOnWriteArrayList<>();
          elector.onLeadershipChanged(events::add);
          await().atMost(Duration.ofSeconds(10)).until(elector::isLeader);
          LeaderElector rival = rival();
          try {
            await().atMost(Duration.ofSeconds(10))
                .until(() -> elector.participants().toCompletableFuture().get(), q -> q.size() == 1);
            AvailabilityChangeEvent.publish(context, ReadinessState.REFUSING_TRAFFIC);
            await().atMost(Duration.ofSeconds(10)).until(rival::isLeader);
            // Listeners run on the elector's dispatcher: the rival can lead before the loss reaches this list.
            await().atMost(Duration.ofSeconds(10)).untilAsserted(
                () -> assertThat(events).extracting(LeadershipEvent::cause).contains(Cause.UNHEALTHY));
            assertThat(elector.health().unhealthy()).hasValueSatisfying(
                r -> assertThat(r).contains("answered false").contains("out of the queue"));
          } finally {
            rival.close();
          }
        });
  }

  @Test
  void aContextWhoseNamedIndicatorGoesDownHandsItsTermToTheRival() {
    AtomicReference<Health> pool = new AtomicReference<>(Health.up().build());
    Fixtures.runner(store)
        .withConfiguration(AutoConfigurations.of(HealthContributorRegistryAutoConfiguration.class))
        .withBean("pool", HealthIndicator.class, () -> pool::get)
        .withPropertyValues("leasehold.health-check.indicator=pool", "leasehold.health-check-interval=20ms")
        .run(context -> {
          LeaderElector elector = context.getBean(LeaderElector.class);
          await().atMost(Duration.ofSeconds(10)).until(elector::isLeader);
          LeaderElector rival = rival();
          try {
            await().atMost(Duration.ofSeconds(10))
                .until(() -> elector.participants().toCompletableFuture().get(), q -> q.size() == 1);
            pool.set(Health.down().withDetail("connections", 0).build());
            await().atMost(Duration.ofSeconds(10)).until(rival::isLeader);
            assertThat(elector.health().unhealthy()).hasValueSatisfying(
                r -> assertThat(r).contains("health indicator pool is DOWN"));
          } finally {
            rival.close();
          }
        });
  }

  @Test
  void bothSettingsAtOnceFailAtStartNamingTheProperty() {
    Fixtures.runner(store)
        .withPropertyValues("leasehold.health-check.readiness=true", "leasehold.health-check.indicator=db")
        .run(context -> assertThat(context).hasFailed().getFailure()
            .rootCause().hasMessageContaining("leasehold.health-check.indicator=\"db\" and "
                + "leasehold.health-check.readiness=true: set one of the two"));
  }
}
