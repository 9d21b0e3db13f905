package dev.leasehold.spring;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderElector;
import dev.leasehold.LeaderInfo;
import dev.leasehold.Leadership;
import java.util.Optional;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * LeaseholdHealthIndicator reports the elector as {@code leasehold} in the health endpoint: who
 * leads, with what fencing token, and whether this instance can take part in the election.
 *
 * <ul>
 *   <li>UP: the elector runs and reaches its store, as leader or follower alike (a follower is
 *       healthy: following is its job).
 *   <li>DOWN: the store is unreachable (STORE_UNAVAILABLE until STORE_RECOVERED). The elector
 *       fails closed, leading nothing, and with every instance DOWN no leader-only work runs.
 *   <li>OUT_OF_SERVICE: the elector is not running (before the context started it, after it
 *       closed it).
 * </ul>
 *
 * <p>Thread-safe: it reads the elector and {@link StoreReach}, both thread-safe, at each call.
 */
public final class LeaseholdHealthIndicator implements HealthIndicator {
  private final LeaderElector elector;
  private final ElectorLifecycle lifecycle;
  private final StoreReach reach;

  /** LeaseholdHealthIndicator reports {@code elector}, run by {@code lifecycle}. */
  public LeaseholdHealthIndicator(LeaderElector elector, ElectorLifecycle lifecycle, StoreReach reach) {
    this.elector = elector;
    this.lifecycle = lifecycle;
    this.reach = reach;
  }

  @Override
  public Health health() {
    ElectorState state = elector.state();
    Optional<StoreReach.Outage> outage = reach.outage();
    Health.Builder b;
    if (!lifecycle.isRunning() || state == ElectorState.STOPPED) {
      b = Health.outOfService();
    } else if (outage.isPresent()) {
      b = Health.down()
          .withDetail("store", "unavailable")
          .withDetail("reason", outage.get().reason())
          .withDetail("unavailableSince", outage.get().since().toString());
    } else {
      b = Health.up().withDetail("store", "available");
    }
    b.withDetail("state", state.name())
        .withDetail("key", elector.config().electionKey())
        .withDetail("candidateId", elector.config().candidateId())
        .withDetail("leader", elector.isLeader());
    Optional<LeaderInfo> leader = elector.currentLeader();
    leader.ifPresent(l -> b.withDetail("leaderId", l.candidateId()).withDetail("fencingToken", l.fencingToken()));
    Optional<Leadership> term = elector.leadership();
    term.ifPresent(t -> b.withDetail("guarantee", t.guarantee().name())
        .withDetail("timeLeftMillis", t.timeLeft().toMillis()));
    return b.build();
  }
}
