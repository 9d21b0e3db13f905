package dev.leasehold;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * ElectorHealth is a snapshot of one elector's health, for a health endpoint, a readiness probe
 * or a log line: its role, the store it runs on, the leader it knows, how long ago its lease
 * was last renewed, whether it reaches the store, and the fallback in force.
 *
 * <p>{@link #healthy()} is the verdict. A FOLLOWER is healthy: not leading is no fault. An
 * elector that is not running (not started yet, or closed), cannot reach its store, or has
 * fallen back to a weaker backend is not. Immutable and thread-safe; {@link
 * LeaderElector#health()} builds a new one at each call, from state the elector's event loop
 * published.
 *
 * @param state the role ({@link ElectorState#STOPPED} once closed)
 * @param running true from {@code start()} until {@code close()}: false before start and once
 *     closed
 * @param backend the store's name: {@code "etcd"}, {@code "jdbc"} or {@code "local"} (for a
 *     fallback elector, the active backend)
 * @param leader the leader this elector knows (itself when MASTER), if any
 * @param sinceRenewal the time since the send time of the last confirmed renewal of the lease
 *     this elector holds (a lease's grant, or the SQL take, counts as its first): the MASTER's
 *     term, or on etcd and local a follower's standby lease; empty when it holds none (a SQL
 *     follower, a follower without a standby lease, a closed elector). An etcd MASTER renews
 *     as late as leaves 2 s of its window (TTL/6 to TTL/2; SQL: every TTL/6), so a value
 *     well above that shows renewals failing; its local deadline falls at
 *     TTL × (1 − maxDriftRate) − safetyMargin.
 * @param storeReachable false from a {@code STORE_UNAVAILABLE} event until the next {@code
 *     STORE_RECOVERED}
 * @param storeFailure why the store is unreachable (the {@code STORE_UNAVAILABLE} event's
 *     reason); empty while it is reachable
 * @param fallback the fallback in force: for an elector built by {@code
 *     dev.leasehold.select.Backends}, the name of the backend it fell back to ({@code
 *     FallbackElector.fallbackInForce()}), empty on its preferred backend; always empty for a
 *     plain elector (etcd, JDBC or local alone), which never falls back
 * @param unhealthy while the user's health check ({@code ElectorConfig.healthCheck()}) holds
 *     this candidate unhealthy: why, and what the elector does about it (it stays out of the
 *     queue and does not campaign; a MASTER hands its term to the next healthy candidate, or,
 *     with none in its queue, keeps it and says so here); empty while healthy or with no check
 */
public record ElectorHealth(
    ElectorState state,
    boolean running,
    String backend,
    Optional<LeaderInfo> leader,
    Optional<Duration> sinceRenewal,
    boolean storeReachable,
    Optional<String> storeFailure,
    Optional<String> fallback,
    Optional<String> unhealthy) {

  /**
   * ElectorHealth rejects null components, a negative renewal age, and a failure reason on a
   * reachable store (or none on an unreachable one).
   *
   * @param state the role, not null
   * @param running whether the elector is between {@code start()} and {@code close()}
   * @param backend the store's name, not null
   * @param leader the known leader, or empty; not null
   * @param sinceRenewal the age of the last confirmed renewal, not negative, or empty; not null
   * @param storeReachable whether the store answers; must be false exactly when {@code
   *     storeFailure} is present
   * @param storeFailure the reason the store is unreachable, or empty while it is reachable; not
   *     null
   * @param fallback the backend fallen back to, or empty; not null
   * @param unhealthy why the user's health check holds this candidate unhealthy, or empty; not null
   * @throws IllegalArgumentException for a negative {@code sinceRenewal}, or a {@code storeFailure}
   *     that does not match {@code storeReachable}
   */
  public ElectorHealth {
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(backend, "backend");
    Objects.requireNonNull(leader, "leader");
    Objects.requireNonNull(sinceRenewal, "sinceRenewal");
    Objects.requireNonNull(storeFailure, "storeFailure");
    Objects.requireNonNull(fallback, "fallback");
    Objects.requireNonNull(unhealthy, "unhealthy");
    if (sinceRenewal.isPresent() && sinceRenewal.get().isNegative()) {
      throw new IllegalArgumentException("sinceRenewal must be >= 0, but was " + sinceRenewal.get());
    }
    if (storeReachable == storeFailure.isPresent()) {
      throw new IllegalArgumentException(
          "storeFailure must be present exactly when the store is unreachable, but was "
              + storeFailure + " with storeReachable " + storeReachable);
    }
  }

  /**
   * ElectorHealth is a snapshot of an elector with no health check in force ({@code unhealthy}
   * empty).
   *
   * @param state the role, not null
   * @param running whether the elector is between {@code start()} and {@code close()}
   * @param backend the store's name, not null
   * @param leader the known leader, or empty; not null
   * @param sinceRenewal the age of the last confirmed renewal, not negative, or empty; not null
   * @param storeReachable whether the store answers
   * @param storeFailure the reason the store is unreachable, or empty while it is reachable
   * @param fallback the backend fallen back to, or empty; not null
   */
  public ElectorHealth(
      ElectorState state, boolean running, String backend, Optional<LeaderInfo> leader,
      Optional<Duration> sinceRenewal, boolean storeReachable, Optional<String> storeFailure,
      Optional<String> fallback) {
    this(state, running, backend, leader, sinceRenewal, storeReachable, storeFailure, fallback, Optional.empty());
  }

  /**
   * healthy is the verdict: running, the store reachable and no fallback in force. The role
   * does not matter: a FOLLOWER (or CANDIDATE) is as healthy as the MASTER. The user's own
   * health check does not count either ({@link #unhealthy()} reports it): the elector works.
   *
   * @return true when this elector needs no attention
   */
  public boolean healthy() {
    return running && storeReachable && fallback.isEmpty();
  }

  /**
   * isLeader is true when this snapshot was taken while the elector was MASTER.
   *
   * @return true for a MASTER snapshot; the term may have ended since
   */
  public boolean isLeader() {
    return state == ElectorState.MASTER;
  }

  /**
   * leaderId is the known leader's candidate id, if a leader is known.
   *
   * @return the leader's candidate id, or empty when no leader is known
   */
  public Optional<String> leaderId() {
    return leader.map(LeaderInfo::candidateId);
  }

  /**
   * fencingToken is the known leader's fencing token, if a leader is known.
   *
   * @return the leader's fencing token, or empty when no leader is known
   */
  public OptionalLong fencingToken() {
    return leader.isPresent() ? OptionalLong.of(leader.get().fencingToken()) : OptionalLong.empty();
  }

  /**
   * withFallback is this snapshot with {@code fallback} in force, for an elector that wraps
   * another and falls back (the wrapped one reports none).
   *
   * @param fallback the name of the backend fallen back to, or empty for none
   * @return a copy of this snapshot with only {@code fallback} replaced
   */
  public ElectorHealth withFallback(Optional<String> fallback) {
    return new ElectorHealth(
        state, running, backend, leader, sinceRenewal, storeReachable, storeFailure, fallback, unhealthy);
  }
}
