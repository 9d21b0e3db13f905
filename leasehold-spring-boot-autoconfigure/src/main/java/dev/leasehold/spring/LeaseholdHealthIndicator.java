package dev.leasehold.spring;

import dev.leasehold.ElectorHealth;
import dev.leasehold.LeaderElector;
import dev.leasehold.select.FallbackElector;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * LeaseholdHealthIndicator reports the elector as {@code leasehold} in the health endpoint, from
 * core's {@link LeaderElector#health()} snapshot: who leads, with what fencing token, how long
 * ago the lease was last renewed, and whether this instance can take part in the election.
 *
 * <ul>
 *   <li>UP: the elector runs and reaches its store, as leader or follower alike (a follower is
 *       healthy: following is its job).
 *   <li>DOWN: the store is unreachable (STORE_UNAVAILABLE until STORE_RECOVERED; detail {@code
 *       reason}). The elector fails closed, leading nothing, and with every instance DOWN no
 *       leader-only work runs.
 *   <li>DOWN too: a fallback is in force ({@code leasehold.fallback}): elections run on a weaker
 *       backend than the preferred one (details {@code fallback} and {@code preferredBackend}),
 *       where instances may disagree on the leader; this is not a healthy state even when it
 *       works.
 *   <li>OUT_OF_SERVICE: the elector is not running (before the context started it, after it
 *       closed it).
 * </ul>
 *
 * <p>Thread-safe: it reads the elector's snapshot, which is immutable, at each call.
 */
public final class LeaseholdHealthIndicator implements HealthIndicator {
  private final LeaderElector elector;
  private final ElectorLifecycle lifecycle;

  /**
   * LeaseholdHealthIndicator reports {@code elector}, run by {@code lifecycle}.
   *
   * @param elector the elector whose health is reported
   * @param lifecycle the lifecycle that starts and closes it
   */
  public LeaseholdHealthIndicator(LeaderElector elector, ElectorLifecycle lifecycle) {
    this.elector = elector;
    this.lifecycle = lifecycle;
  }

  @Override
  public Health health() {
    ElectorHealth h = elector.health();
    Health.Builder b;
    if (!lifecycle.isRunning() || !h.running()) {
      b = Health.outOfService();
    } else if (h.healthy()) {
      b = Health.up();
    } else {
      b = Health.down();
    }
    b.withDetail("store", h.storeReachable() ? "available" : "unavailable");
    h.storeFailure().ifPresent(r -> b.withDetail("reason", r));
    h.fallback().ifPresent(f -> b.withDetail("fallback", f));
    if (h.fallback().isPresent() && elector instanceof FallbackElector f) {
      b.withDetail("preferredBackend", f.backends().get(0).propertyName());
    }
    b.withDetail("backend", h.backend())
        .withDetail("state", h.state().name())
        .withDetail("key", elector.config().electionKey())
        .withDetail("candidateId", elector.config().candidateId())
        .withDetail("leader", h.isLeader());
    h.leader().ifPresent(l -> b.withDetail("leaderId", l.candidateId()).withDetail("fencingToken", l.fencingToken()));
    h.sinceRenewal().ifPresent(d -> b.withDetail("sinceRenewalMillis", d.toMillis()));
    elector.leadership().ifPresent(t -> b.withDetail("guarantee", t.guarantee().name())
        .withDetail("timeLeftMillis", t.timeLeft().toMillis()));
    return b.build();
  }
}
