package dev.leasehold.protocol;

import dev.leasehold.runtime.StepEffects;
import java.util.random.RandomGenerator;

/**
 * Effects is what the etcd machine's parts share to act: the runtime's {@link StepEffects}
 * (the step's commands, operation ids, one arming per {@link TimerKind}, the jittered
 * backoff), with the backoff bounds of its {@link ProtocolConfig}, and a random delay for a
 * campaign that cannot count its rivals.
 *
 * <p>Not thread-safe: owned by one {@link ElectionMachine}.
 */
final class Effects extends StepEffects<TimerKind> {
  Effects(ProtocolConfig config, RandomGenerator random) {
    super(TimerKind.class, config.backoffInitialNanos(), config.backoffMaxNanos(), random);
  }

  /** spread is a delay drawn uniformly in [0, {@code bound}) nanoseconds. */
  long spread(long bound) {
    return (long) (random().nextDouble() * bound);
  }
}
