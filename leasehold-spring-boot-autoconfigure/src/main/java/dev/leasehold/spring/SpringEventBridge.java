package dev.leasehold.spring;

import dev.leasehold.LeaderElector;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipListener;
import org.springframework.context.ApplicationEventPublisher;

/**
 * SpringEventBridge publishes each elector event as a {@link LeadershipChangedEvent}, on the
 * elector's dispatcher thread, in order.
 *
 * <p>Thread-safe: stateless apart from its final fields.
 */
final class SpringEventBridge implements LeadershipListener {
  private final LeaderElector elector;
  private final ApplicationEventPublisher publisher;

  SpringEventBridge(LeaderElector elector, ApplicationEventPublisher publisher) {
    this.elector = elector;
    this.publisher = publisher;
  }

  @Override
  public void onLeadershipChanged(LeadershipEvent event) {
    publisher.publishEvent(new LeadershipChangedEvent(elector, event));
  }
}
