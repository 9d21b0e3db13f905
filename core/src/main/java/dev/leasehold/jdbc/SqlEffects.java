package dev.leasehold.jdbc;

import dev.leasehold.runtime.StepEffects;
import java.util.HashSet;
import java.util.Set;
import java.util.function.LongFunction;
import java.util.random.RandomGenerator;

/**
 * SqlEffects is what the SQL machine's parts share to act: the runtime's {@link StepEffects}
 * (the step's commands, operation ids, one arming per {@link SqlTimer}, the jittered backoff),
 * plus the calls still awaiting their answer and the holder tokens, drawn from the same
 * randomness.
 *
 * <p>Not thread-safe: owned by one {@link SqlMachine}.
 */
final class SqlEffects extends StepEffects<SqlTimer> {
  private final Set<Long> awaited = new HashSet<>();

  SqlEffects(SqlConfig config, RandomGenerator random) {
    super(SqlTimer.class, config.backoffInitialNanos(), config.backoffMaxNanos(), random);
  }

  /** call appends the statement {@code make} builds for a fresh op id, awaits its answer and returns the id. */
  long call(LongFunction<SqlCommand.Statement> make) {
    long op = id();
    awaited.add(op);
    add(make.apply(op));
    return op;
  }

  /** answered tells whether {@code op} was awaited, and stops awaiting it: false for a late answer. */
  boolean answered(long op) {
    return awaited.remove(op);
  }

  /** token draws a fresh holder token. */
  HolderToken token() {
    return HolderToken.random(random());
  }
}
