package dev.leasehold.select;

import dev.leasehold.LeaderElector;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * BackendTier is one backend of a {@link FallbackRuntime}'s chain: a factory of fresh, unstarted
 * electors on it, and (for the preferred backend under FALL_BACK_AND_RETURN) of probe electors on
 * its probe key. Immutable; the runtime calls its factories on its loop only.
 *
 * @param backend the backend
 * @param elector builds a new elector on it, each time it becomes active
 * @param probe builds a probe elector on it, or null when it is never probed
 */
record BackendTier(
    Backend backend, Supplier<LeaderElector> elector, Supplier<LeaderElector> probe) {
  /** BackendTier rejects a null backend or elector factory. */
  BackendTier {
    Objects.requireNonNull(backend, "backend");
    Objects.requireNonNull(elector, "elector");
  }
}
