package dev.leasehold.etcd.protocol;

import dev.leasehold.runtime.StepEffects;
import java.util.random.RandomGenerator;

/**
 * Effects is what the etcd machine's parts share to act: the runtime's {@link StepEffects}
 * (the step's commands, operation ids, one arming per {@link TimerKind}, the jittered
 * backoff), with the backoff bounds of its {@link ProtocolConfig}.
 *
 * <p>Not thread-safe: owned by one {@link ElectionMachine}.
 */
final class Effects extends StepEffects<TimerKind> {
  Effects(ProtocolConfig config, RandomGenerator random) {
    super(TimerKind.class, config.backoffInitialNanos(), config.backoffMaxNanos(), random);
  }
}
