package dev.leasehold.spring;

import dev.leasehold.LeaderElector;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipListener;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;

/**
 * IntegrationEventBridge publishes Spring Integration's {@link OnGrantedEvent} when this
 * instance is elected and {@link OnRevokedEvent} when its term ends, with the election key as
 * the role, so listeners written for Spring Integration's leader initiators work unchanged.
 * Only created when Spring Integration is on the class path.
 *
 * <p>Thread-safe: stateless apart from its final fields; events go out on the elector's
 * dispatcher thread, in order.
 */
final class IntegrationEventBridge implements LeadershipListener {
  private final LeaderElector elector;
  private final ApplicationEventPublisher publisher;
  private final Context context;

  IntegrationEventBridge(LeaderElector elector, ApplicationEventPublisher publisher) {
    this.elector = elector;
    this.publisher = publisher;
    this.context = new ElectorContext(elector);
  }

  @Override
  public void onLeadershipChanged(LeadershipEvent event) {
    String role = elector.config().electionKey();
    if (event.isElected()) {
      publisher.publishEvent(new OnGrantedEvent(elector, context, role));
    } else if (event.isLost()) {
      publisher.publishEvent(new OnRevokedEvent(elector, context, role));
    }
  }

  /**
   * ElectorContext is Spring Integration's view of the elector: {@code isLeader()} reads the
   * elector at call time, {@code yield()} resigns. Thread-safe.
   */
  static final class ElectorContext implements Context {
    private final LeaderElector elector;

    ElectorContext(LeaderElector elector) {
      this.elector = elector;
    }

    @Override
    public boolean isLeader() {
      return elector.isLeader();
    }

    @Override
    public void yield() {
      elector.resign();
    }

    @Override
    public String getRole() {
      return elector.config().electionKey();
    }

    @Override
    public String toString() {
      return "LeaseholdContext[role=" + getRole() + ", leader=" + isLeader() + "]";
    }
  }
}
