package dev.leasehold.spring;

import dev.leasehold.HealthCheck;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.env.Environment;

/**
 * LeaderOnlyKeysLifecycle opens the shared session of {@code @LeaderOnly(key = ...)} methods
 * when the context starts, if there are any (no key, no session and no connection), and closes
 * it on shutdown, in the elector's phase ({@link ElectorLifecycle#PHASE}), so scheduled jobs
 * stop first. Each key's events are published as {@link LeadershipChangedEvent}s, and a call
 * whose term ends is interrupted as for the context's elector.
 *
 * <p>Thread-safe: start and stop are synchronized.
 */
final class LeaderOnlyKeysLifecycle implements SmartLifecycle {
  private static final Logger log = LoggerFactory.getLogger(LeaderOnlyKeysLifecycle.class);

  private final LeaderOnlyKeys keys;
  private final Environment environment;
  private final LeaderOnlyCalls calls;
  private final ApplicationEventPublisher publisher;
  private final Supplier<HealthCheck> healthCheck;
  private boolean running;

  LeaderOnlyKeysLifecycle(
      LeaderOnlyKeys keys, Environment environment, LeaderOnlyCalls calls, ApplicationEventPublisher publisher,
      Supplier<HealthCheck> healthCheck) {
    this.keys = keys;
    this.environment = environment;
    this.calls = calls;
    this.publisher = publisher;
    this.healthCheck = healthCheck;
  }

  @Override
  public synchronized void start() {
    if (running) {
      return;
    }
    running = true;
    if (keys.keys().isEmpty()) {
      return;
    }
    keys.open(ElectorFactory.jobSession(environment, healthCheck.get()),
        e -> List.of(calls, new SpringEventBridge(e, publisher)));
    log.info("leasehold @LeaderOnly keys spread on one session: {}", keys.keys());
  }

  @Override
  public synchronized void stop() {
    running = false;
    keys.close();
  }

  @Override
  public synchronized boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return ElectorLifecycle.PHASE;
  }
}
