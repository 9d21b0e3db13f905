package dev.leasehold.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.leasehold.LeaderElector;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.local.LocalStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.context.event.EventListener;
import org.springframework.integration.leader.event.AbstractLeaderEvent;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;

/** Elector events as Spring application events, and as Spring Integration's leader events. */
class LeadershipEventsTest {
  private final LocalStore store = LocalStore.create();

  @AfterEach
  void closeStore() {
    store.close();
  }

  /** Recorder collects what the context publishes. */
  public static class Recorder {
    final List<LeadershipEvent.Cause> causes = new CopyOnWriteArrayList<>();
    final List<AbstractLeaderEvent> integration = new CopyOnWriteArrayList<>();

    /** onLeadership records a LeadershipChangedEvent. */
    @EventListener
    public void onLeadership(LeadershipChangedEvent e) {
      causes.add(e.event().cause());
    }

    /** onIntegration records Spring Integration's events. */
    @EventListener
    public void onIntegration(AbstractLeaderEvent e) {
      integration.add(e);
    }
  }

  @Test
  void electionResignationAndCloseArePublishedInOrderBothWays() {
    Recorder recorder = new Recorder();
    Fixtures.runner(store).withBean(Recorder.class, () -> recorder).run(context -> {
      LeaderElector elector = context.getBean(LeaderElector.class);
      elector.awaitLeadership(Duration.ofSeconds(10)).orElseThrow();
      await().atMost(Duration.ofSeconds(5)).until(() -> recorder.integration.size() == 1);
      OnGrantedEvent granted = (OnGrantedEvent) recorder.integration.get(0);
      assertThat(granted.getRole()).isEqualTo(Fixtures.KEY);
      assertThat(granted.getContext().isLeader()).isTrue();
      assertThat(granted.getContext().getRole()).isEqualTo(Fixtures.KEY);

      granted.getContext().yield(); // Spring Integration's way to resign
      await().atMost(Duration.ofSeconds(5)).until(() -> recorder.integration.size() == 2);
      assertThat(recorder.integration.get(1)).isInstanceOf(OnRevokedEvent.class);
      assertThat(recorder.integration.get(1).getRole()).isEqualTo(Fixtures.KEY);
      // Back as leader once its resign hold-off (the TTL) is over.
      await().atMost(Duration.ofSeconds(10)).until(() -> recorder.integration.size() == 3);
    });
    // Closing the context closes the elector; its CLOSED event still reaches the listeners.
    assertThat(recorder.causes)
        .startsWith(LeadershipEvent.Cause.SUBSCRIBED)
        .containsSubsequence(LeadershipEvent.Cause.ELECTED, LeadershipEvent.Cause.RESIGNED,
            LeadershipEvent.Cause.ELECTED, LeadershipEvent.Cause.CLOSED)
        .endsWith(LeadershipEvent.Cause.CLOSED);
    assertThat(recorder.integration).hasSize(4).last().isInstanceOf(OnRevokedEvent.class);
  }

  @Test
  void withoutSpringIntegrationOnlyLeadershipChangedEventsArePublished() {
    Fixtures.runner(store)
        .withClassLoader(new FilteredClassLoader(OnGrantedEvent.class))
        .run(context -> {
          assertThat(context).hasNotFailed().doesNotHaveBean(IntegrationEventBridge.class)
              .hasSingleBean(SpringEventBridge.class);
        });
  }
}
