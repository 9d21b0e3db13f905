package dev.leasehold.select;

import dev.leasehold.ElectorHealth;
import dev.leasehold.ElectorState;
import dev.leasehold.LeaderElector;
import dev.leasehold.LeaderInfo;
import java.util.Optional;

/**
 * FallbackHealth builds a fallback elector's {@link ElectorHealth}: the active inner elector's
 * (leader, renewal age, reachability), with the composite's own role and lifecycle, the active
 * tier's backend name and the fallback in force; with no inner elector (between two, or when the active tier's could not be
 * built), the active tier's name and the build failure, if any, as the store's.
 *
 * <p>Stateless and thread-safe.
 */
final class FallbackHealth {
  private FallbackHealth() {}

  static ElectorHealth of(
      LeaderElector inner,
      ElectorState state,
      boolean running,
      Backend active,
      Optional<Backend> fallback,
      LeaderInfo leader,
      String buildFailure) {
    Optional<String> fellBackTo = fallback.map(Backend::propertyName);
    if (inner == null) {
      return new ElectorHealth(
          state, running, active.propertyName(), Optional.ofNullable(leader), Optional.empty(),
          buildFailure == null, Optional.ofNullable(buildFailure), fellBackTo);
    }
    ElectorHealth h = inner.health();
    return new ElectorHealth(
        state, running, active.propertyName(), h.leader(), h.sinceRenewal(), h.storeReachable(),
        h.storeFailure(), fellBackTo, h.unhealthy());
  }
}
