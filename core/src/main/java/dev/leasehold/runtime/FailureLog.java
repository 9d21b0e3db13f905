package dev.leasehold.runtime;

import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import java.util.HashSet;
import java.util.Set;
import org.slf4j.Logger;

/**
 * FailureLog puts the reason of store failures in the log: the STORE_UNAVAILABLE line names the
 * failure that began the outage, and each different reason seen while it lasts gets one line
 * more (a first call that timed out, then etcd refusing the password), at most
 * {@value #MAX_REASONS} per outage, never one per retry. A {@link ConfigurationErrors
 * configuration error} is logged at ERROR, as such, once per outage: only the operator can end
 * it. Other reasons are WARNs.
 *
 * It also writes the one log line every event gets.
 *
 * <p>Not thread-safe: confined to the runtime's event loop.
 */
final class FailureLog {
  static final int MAX_REASONS = 4;

  private final Logger log;
  private final String name;
  private final Set<String> logged = new HashSet<>();
  private String last;
  private boolean unavailable;

  FailureLog(Logger log, String name) {
    this.log = log;
    this.name = name;
  }

  /** failed notes a failed call's reason; during an outage a new reason is logged once. */
  void failed(String reason) {
    if (reason == null) {
      return;
    }
    last = reason;
    if (unavailable && logged.size() < MAX_REASONS && logged.add(reason)) {
      if (ConfigurationErrors.is(reason)) {
        log.error("{}: store still unavailable, now refusing this elector: {}", name, reason);
      } else {
        log.warn("{}: store still unavailable: {}", name, reason);
      }
    }
  }

  /** outageBegan returns the reason the outage began with (or "unknown") and starts counting. */
  String outageBegan() {
    unavailable = true;
    logged.clear();
    String reason = last == null ? "unknown" : last;
    logged.add(reason);
    return reason;
  }

  /**
   * logEvent writes the one line each event gets; store outages carry their reason, which the
   * runtime took from {@link #outageBegan()} when it built the event.
   */
  void logEvent(LeadershipEvent e) {
    String leader =
        e.leader().map(l -> l.candidateId() + " token=" + l.fencingToken()).orElse("none");
    if (e.cause() == Cause.STORE_RECOVERED) {
      recovered();
    }
    if (e.cause() == Cause.STORE_UNAVAILABLE && e.from() != e.to()) {
      // On SQL a MASTER whose term session failed loses its term with this cause.
      log.warn(
          "{}: {} -> {} (STORE_UNAVAILABLE: {}), leader {}",
          name, e.from(), e.to(), e.reason().orElse("unknown"), leader);
    } else if (e.cause() == Cause.STORE_UNAVAILABLE
        && ConfigurationErrors.is(e.reason().orElse(null))) {
      log.error(
          "{}: store unavailable, refusing this elector; retrying at the maximum backoff until the"
              + " configuration is fixed (role {}): {}",
          name, e.to(), e.reason().orElseThrow());
    } else if (e.cause() == Cause.STORE_UNAVAILABLE) {
      log.warn(
          "{}: store unavailable, retrying with backoff (role {}): {}",
          name, e.to(), e.reason().orElse("unknown"));
    } else if (e.from() == e.to()) {
      log.info("{}: {} (role {}, leader {})", name, e.cause(), e.to(), leader);
    } else {
      log.info("{}: {} -> {} ({}), leader {}", name, e.from(), e.to(), e.cause(), leader);
    }
  }

  /** recovered ends the outage. */
  void recovered() {
    unavailable = false;
    last = null;
  }
}
