package dev.leasehold;

/**
 * HealthCheck is the user's probe of whether this instance is fit to lead (its database pool
 * works, its disk is writable, Spring Boot's readiness state is up): set with {@code
 * ElectorConfig.Builder.healthCheck}, the elector polls it every {@code healthCheckInterval} on a
 * thread of its own, never on its event loop, and after {@code healthCheckThreshold} answers in a
 * row that differ from its current view it changes its mind: an unhealthy candidate leaves the
 * election's queue and does not campaign, and an unhealthy MASTER hands its term to the next
 * healthy candidate (PROTOCOL.md §4.5, "Yield when unhealthy").
 *
 * <p>Implementations are called from one thread at a time, but not always the same one; they
 * should answer within the interval (one still running at the next poll counts as unhealthy).
 */
@FunctionalInterface
public interface HealthCheck {
  /**
   * check answers whether this instance is fit to lead; an exception counts as unhealthy, with
   * its message as the reason.
   *
   * @return true when healthy
   * @throws Exception when the probe fails, which counts as unhealthy
   */
  boolean check() throws Exception;
}
