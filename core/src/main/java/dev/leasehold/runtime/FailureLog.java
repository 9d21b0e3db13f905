package dev.leasehold.runtime;

import java.util.HashSet;
import java.util.Set;
import org.slf4j.Logger;

/**
 * FailureLog puts the reason of store failures in the log: the STORE_UNAVAILABLE line names the
 * failure that began the outage, and each different reason seen while it lasts gets one line
 * more (a first call that timed out, then etcd refusing the password), at most
 * {@value #MAX_REASONS} per outage, never one per retry.
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
      log.warn("{}: store still unavailable: {}", name, reason);
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

  /** recovered ends the outage. */
  void recovered() {
    unavailable = false;
    last = null;
  }
}
