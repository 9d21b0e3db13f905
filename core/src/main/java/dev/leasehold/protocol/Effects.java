package dev.leasehold.protocol;

import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * Effects is what the machine's parts share to act: the commands of the current step, in
 * order; operation ids and timer arming numbers, from one counter; the timer table, at most
 * one arming per {@link TimerKind}; and the jittered backoff, the machine's one use of
 * randomness.
 *
 * <p>Not thread-safe: owned by one {@link ElectionMachine}.
 */
final class Effects {
  private final ProtocolConfig config;
  private final RandomGenerator random;
  private final Map<TimerKind, Long> armed = new EnumMap<>(TimerKind.class);
  private List<Command> out = new ArrayList<>();
  private long nextId = 1;

  Effects(ProtocolConfig config, RandomGenerator random) {
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

  /** add appends a command. */
  void add(Command c) {
    out.add(c);
  }

  /** id is a fresh operation id (or arming number); ids never repeat. */
  long id() {
    return nextId++;
  }

  /** setTimer arms {@code kind} at {@code at}, replacing its previous arming. */
  void setTimer(TimerKind kind, long at) {
    long seq = id();
    armed.put(kind, seq);
    out.add(new Command.SetTimer(kind, seq, at));
  }

  /** cancelTimer disarms {@code kind}; it says nothing when the kind is not armed. */
  void cancelTimer(TimerKind kind) {
    if (armed.remove(kind) != null) {
      out.add(new Command.CancelTimer(kind));
    }
  }

  /** cancelAllTimers disarms every armed timer, in {@link TimerKind} order. */
  void cancelAllTimers() {
    for (TimerKind k : TimerKind.values()) {
      cancelTimer(k);
    }
  }

  /**
   * fired is the kind of a timer that went off for its latest arming, which it disarms; null
   * for an arming that was replaced or cancelled, or a timer that is not the machine's.
   */
  TimerKind fired(Input.TimerFired t) {
    if (!(t.timer() instanceof TimerKind kind)) {
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
    long base = config.backoffInitialNanos();
    long cap = config.backoffMaxNanos();
    long d = base;
    for (long i = 1; i < n && d < cap; i++) {
      d = Math.min(cap, d * 2);
    }
    d = Math.min(cap, d);
    return d / 2 + (long) (random.nextDouble() * (d / 2));
  }
}
