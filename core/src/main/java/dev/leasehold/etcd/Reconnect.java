package dev.leasehold.etcd;

import java.net.ConnectException;
import java.util.function.LongSupplier;

/**
 * Reconnect tells when the elector's own jetcd client should be replaced by a fresh one. gRPC
 * reconnects a channel that cannot reach its server with an exponential backoff of its own
 * (1 s growing by 1.6 up to 120 s), which jetcd 0.8.5 neither exposes nor lets us reset: after a
 * long outage the channel would wait up to two minutes before it even tried again, whatever
 * the elector's retries. A new client connects at its first call. So while calls fail because
 * the connection cannot be made, the client is rebuilt, at most once per {@code periodNanos}
 * (the maximum retry backoff): once etcd is back, the next call after at most that period
 * connects (PROTOCOL.md §9).
 *
 * <p>Thread-safe: {@link #answered()} and {@link #failed} run on jetcd's threads, {@link #due()}
 * on the elector's event loop; a race between them only moves a rebuild by one call.
 */
final class Reconnect {
  private static final int MAX_DEPTH = 12;

  private final LongSupplier clock;
  private final long periodNanos;
  private volatile boolean unreachable;
  private volatile long since;
  private long rebuiltAt;
  private boolean rebuilt;

  /** Reconnect measures time with {@code clock} and rebuilds at most once per {@code periodNanos}. */
  Reconnect(LongSupplier clock, long periodNanos) {
    this.clock = clock;
    this.periodNanos = periodNanos;
  }

  /** answered records a call etcd answered: the connection works. */
  void answered() {
    unreachable = false;
  }

  /**
   * failed records a failed call; only a connection that could not be made counts, any other
   * failure (etcd without a leader, a refusal) came over a working connection.
   */
  void failed(Throwable failure) {
    if (!cannotConnect(failure)) {
      unreachable = false;
    } else if (!unreachable) {
      since = clock.getAsLong();
      unreachable = true;
    }
  }

  /**
   * due tells whether the client should be rebuilt now: calls have failed to connect for at
   * least the period, and no rebuild happened within it. A true answer counts as the rebuild.
   */
  boolean due() {
    if (!unreachable) {
      return false;
    }
    long now = clock.getAsLong();
    if (now - since < periodNanos || rebuilt && now - rebuiltAt < periodNanos) {
      return false;
    }
    rebuilt = true;
    rebuiltAt = now;
    return true;
  }

  /** cannotConnect tells whether a failure is a connection that could not be made (refused, timed out). */
  static boolean cannotConnect(Throwable failure) {
    int depth = 0;
    for (Throwable c = failure; c != null && depth < MAX_DEPTH; c = c.getCause(), depth++) {
      // Netty's ConnectTimeoutException is a ConnectException too.
      if (c instanceof ConnectException) {
        return true;
      }
      for (Throwable s : c.getSuppressed()) {
        if (s instanceof ConnectException) {
          return true;
        }
      }
    }
    return false;
  }
}
