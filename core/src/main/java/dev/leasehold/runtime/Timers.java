package dev.leasehold.runtime;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Timers arms and disarms the machine's timers ({@link Command.SetTimer}, {@link
 * Command.CancelTimer}) on the scheduler: one arming per timer, which fires as an {@link
 * Input.TimerFired} on the event loop.
 *
 * <p>Not thread-safe: confined to the runtime's event loop.
 */
final class Timers {
  private final Map<Enum<?>, Scheduler.Cancellable> armed = new HashMap<>();
  private final Scheduler scheduler;
  private final Consumer<Input> handler;

  Timers(Scheduler scheduler, Consumer<Input> handler) {
    this.scheduler = scheduler;
    this.handler = handler;
  }

  /** set arms {@code t.timer()} for {@code t.atNanos()}, replacing its previous arming. */
  void set(Command.SetTimer t) {
    cancel(t.timer());
    long delay = t.atNanos() - scheduler.nanoTime();
    armed.put(
        t.timer(),
        scheduler.schedule(() -> handler.accept(new Input.TimerFired(t.timer(), t.seq())), delay));
  }

  /** cancel disarms {@code timer}, if armed. */
  void cancel(Enum<?> timer) {
    Scheduler.Cancellable old = armed.remove(timer);
    if (old != null) {
      old.cancel();
    }
  }

  /** cancelAll disarms every timer. */
  void cancelAll() {
    for (Scheduler.Cancellable t : armed.values()) {
      t.cancel();
    }
    armed.clear();
  }
}
