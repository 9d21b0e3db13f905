package dev.leasehold.spec.sim;

/** Stats counts what the simulation exercised; merged across schedules. Not thread-safe. */
final class Stats {
  enum Stat {
    SCHEDULES, STEPS, EVENTS, VIRTUAL_MS, FAULTS,
    ELECTED, LOST_DEADLINE, LOST_KEY_DELETED, LOST_LEASE_REVOKED, LOST_KEY_TAKEN, LOST_RESIGNED,
    CLOSED, STORE_UNAVAILABLE,
    PARTITIONS, LEADER_CHANGES, ISOLATIONS, CRASHES, RESTARTS, PAUSES, PAUSED_MASTERS,
    MASTERS_RESUMED_PAST_DEADLINE, COMPACTIONS, ADMIN_ACTIONS, RESIGNS, TRANSFERS, TRANSFERS_COMMITTED,
    TRANSFERS_REFUSED, LOST_TRANSFERRED, SICK_SPELLS, LOST_UNHEALTHY, LOST_PREEMPTED, EARLY_CLOSES, DRIFT_CHANGES,
    ISOLATED_LEADER_ACKS, TERM_MISMATCH_RETRIES, STALE_READS_SERVED, CAMPAIGN_APPLIED_BUT_FAILED,
    COMMIT_TOO_LATE, GRANT_REVOKED_AFTER_CLOSE, LEASES_EXPIRED_BY_SWEEP, WATCH_FAILURES,
    WATCH_COMPACTED, REQUESTS, REQUESTS_FAILED, DUPLICATED_REQUESTS, RETRIED_CAS_FOUND_OWN_KEY,
    STALE_ELECTED_AFTER_ADMIN_DELETE, LISTENER_EVENTS, RELEASE_ATTEMPTS, RELEASES_GIVEN_UP,
    ENLISTS, HANDOVERS, HANDOVERS_REFUSED, HANDOVER_APPLIED_BUT_FAILED, PARTICIPANTS_WITHDRAWN,
    MAX_TIME_TO_MASTER_AFTER_QUIET_MS, MAX_TIME_TO_MASTER_PER_MILLE_OF_BOUND
  }

  private final long[] v = new long[Stat.values().length];

  void inc(Stat s) {
    v[s.ordinal()]++;
  }

  void add(Stat s, long d) {
    v[s.ordinal()] += d;
  }

  void max(Stat s, long x) {
    v[s.ordinal()] = Math.max(v[s.ordinal()], x);
  }

  long get(Stat s) {
    return v[s.ordinal()];
  }

  void merge(Stats o) {
    for (Stat s : Stat.values()) {
      if (s.name().startsWith("MAX_")) {
        max(s, o.get(s));
      } else {
        add(s, o.get(s));
      }
    }
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder();
    for (Stat s : Stat.values()) {
      b.append(String.format("  %-38s %,d%n", s.name().toLowerCase(), get(s)));
    }
    return b.toString();
  }
}
