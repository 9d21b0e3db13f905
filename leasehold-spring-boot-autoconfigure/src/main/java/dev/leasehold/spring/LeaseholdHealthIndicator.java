package dev.leasehold.spring;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderElector;
import dev.leasehold.LeaderInfo;
import dev.leasehold.Leadership;
import dev.leasehold.select.Backend;
import dev.leasehold.select.FallbackElector;
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
 *   <li>DOWN too: a fallback is in force ({@code leasehold.fallback}): elections run on a weaker
 *       backend than the preferred one (details {@code fallback} and {@code guarantee}), where
 *       instances may disagree on the leader; this is not a healthy state even when it works.
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
    Optional<Backend> fallback =
        elector instanceof FallbackElector f ? f.fallbackInForce() : Optional.empty();
    Health.Builder b;
    if (!lifecycle.isRunning() || state == ElectorState.STOPPED) {
      b = Health.outOfService();
    } else if (fallback.isPresent()) {
      FallbackElector f = (FallbackElector) elector;
      b = Health.down()
          .withDetail("fallback", fallback.get().propertyName())
          .withDetail("preferredBackend", f.backends().get(0).propertyName());
      outage.ifPresent(o -> b.withDetail("reason", o.reason()).withDetail("unavailableSince", o.since().toString()));
    } else if (outage.isPresent()) {
      b = Health.down()
          .withDetail("store", "unavailable")
          .withDetail("reason", outage.get().reason())
          .withDetail("unavailableSince", outage.get().since().toString());
    } else {
      b = Health.up().withDetail("store", "available");
    }
    if (elector instanceof FallbackElector f) {
      b.withDetail("backend", f.activeBackend().propertyName());
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
