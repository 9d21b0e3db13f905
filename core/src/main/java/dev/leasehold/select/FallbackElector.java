package dev.leasehold.select;

import dev.leasehold.LeaderElector;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * FallbackElector is a {@link LeaderElector} over an ordered list of backends with a
 * {@link FallbackPolicy}; {@link Backends} builds it. At any time it runs one elector on one
 * backend (the active one) and forwards that elector's events; between two backends it
 * publishes {@code FALLBACK} or {@code FALLBACK_ENDED}, never while MASTER, and the term on the
 * backend it leaves has ended before an elector on the next one starts. Terms carry their
 * backend's guarantee ({@code Leadership.guarantee()}).
 *
 * <p>Thread-safe: every method may be called from any thread, including from a listener. One
 * event-loop thread owns its state; listeners run on its dispatcher (or their executor), never
 * on the loop and never under a lock.
 */
public interface FallbackElector extends LeaderElector {
  /**
   * backends lists the backends in order of preference; the first is the preferred one.
   *
   * @return the backends, most preferred first; unmodifiable
   */
  List<Backend> backends();

  /**
   * policy is the fallback policy this elector runs with.
   *
   * @return the policy as configured
   */
  FallbackPolicy policy();

  /**
   * fallbackAfter is how long the active backend must be unreachable before a fallback.
   *
   * @return the outage that triggers a fallback, at least the lease TTL
   */
  Duration fallbackAfter();

  /**
   * returnAfter is how long the preferred backend must answer before a return to it.
   *
   * @return how long the preferred backend must answer, at least zero
   */
  Duration returnAfter();

  /**
   * activeBackend is the backend the current elector runs on (during a switch, the one being
   * left until the switch's event is published).
   *
   * @return the active backend
   */
  Backend activeBackend();

  /**
   * fallbackInForce is the active backend while it is not the preferred one (a fallback is in
   * force), else empty; for health checks and metrics.
   *
   * @return the fallback backend in use, or empty while on the preferred one
   */
  Optional<Backend> fallbackInForce();
}
