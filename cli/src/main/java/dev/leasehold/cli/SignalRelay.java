package dev.leasehold.cli;

import java.util.List;
import java.util.function.BiConsumer;
import sun.misc.Signal;

/**
 * SignalRelay takes SIGTERM, SIGINT and SIGHUP away from the JVM's default (run the shutdown
 * hooks and exit) and hands each to a callback instead, so that {@code run} can forward them to
 * its child and decide itself when to exit.
 *
 * <p>Thread-safe: the callback runs on the JVM's signal thread, one signal at a time; it must
 * only enqueue.
 */
final class SignalRelay {
  /** FORWARDED are the signals relayed, by name. */
  static final List<String> FORWARDED = List.of("TERM", "INT", "HUP");

  private SignalRelay() {}

  /** install relays every signal of {@link #FORWARDED} to {@code onSignal(name, number)}. */
  static void install(BiConsumer<String, Integer> onSignal) {
    for (String name : FORWARDED) {
      Signal.handle(new Signal(name), s -> onSignal.accept(s.getName(), s.getNumber()));
    }
  }
}
