package dev.leasehold.jdbc;

import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongFunction;
import java.util.random.RandomGenerator;

/**
 * SqlEffects is what the SQL machine's parts share to act: the commands of the current step,
 * in order; operation ids and timer arming numbers, from one counter; the calls still awaiting
 * their answer; the timer table, at most one arming per {@link SqlTimer}; and the randomness
 * (jittered backoff, holder tokens).
 *
 * <p>Not thread-safe: owned by one {@link SqlMachine}.
 */
final class SqlEffects {
  private final SqlConfig config;
  private final RandomGenerator random;
  private final Map<SqlTimer, Long> armed = new EnumMap<>(SqlTimer.class);
  private final Set<Long> awaited = new HashSet<>();
  private List<Command> out = new ArrayList<>();
  private long nextId = 1;

  SqlEffects(SqlConfig config, RandomGenerator random) {
    this.config = config;
    this.random = random;
  }

  /** begin starts a step's command list. */
  void begin() {
    out = new ArrayList<>();
  }

  /** commands is the current step's command list. */
  List<Command> commands() {
    return out;
  }

  /** add appends a command that has no answer. */
  void add(Command c) {
    out.add(c);
  }

  /** call appends the statement {@code make} builds for a fresh op id, awaits its answer and returns the id. */
  long call(LongFunction<SqlCommand> make) {
    long op = nextId++;
    awaited.add(op);
    out.add(make.apply(op));
    return op;
  }

  /** answered tells whether {@code op} was awaited, and stops awaiting it: false for a late answer. */
  boolean answered(long op) {
    return awaited.remove(op);
  }

  /** setTimer arms {@code kind} at {@code at}, replacing its previous arming. */
  void setTimer(SqlTimer kind, long at) {
    long seq = nextId++;
    armed.put(kind, seq);
    out.add(new Command.SetTimer(kind, seq, at));
  }

  /** cancelTimer disarms {@code kind}; it says nothing when the kind is not armed. */
  void cancelTimer(SqlTimer kind) {
    if (armed.remove(kind) != null) {
      out.add(new Command.CancelTimer(kind));
    }
  }

  /** cancelAllTimers disarms every armed timer, in {@link SqlTimer} order. */
  void cancelAllTimers() {
    for (SqlTimer k : SqlTimer.values()) {
      cancelTimer(k);
    }
  }

  /**
   * fired is the kind of a timer that went off for its latest arming, which it disarms; null
   * for an arming that was replaced or cancelled, or a timer that is not this machine's.
   */
  SqlTimer fired(Input.TimerFired t) {
    if (!(t.timer() instanceof SqlTimer kind)) {
      return null;
    }
    Long seq = armed.get(kind);
    if (seq == null || seq != t.seq()) {
      return null;
    }
    armed.remove(kind);
    return kind;
  }

  /** backoff is the capped exponential delay after n failures, with equal jitter (§4.4). */
  long backoff(long n) {
    long cap = config.backoffMaxNanos();
    long d = config.backoffInitialNanos();
    for (long i = 1; i < n && d < cap; i++) {
      d = Math.min(cap, d * 2);
    }
    d = Math.min(cap, d);
    return d / 2 + (long) (random.nextDouble() * (d / 2));
  }

  /** token draws a fresh holder token. */
  HolderToken token() {
    return HolderToken.random(random);
  }
}
