package dev.leasehold.jdbc;

/**
 * ObservedRow is a follower's observed wait (PROTOCOL.md, SQL backend, "Timing"): the held row's
 * {@code (holder, version)} as last read, and the local time the <em>first</em> S1 reply that
 * showed it arrived. Counting from the reply's arrival, not the read's send time, is what makes
 * it safe: the version may have been written after the read was sent.
 *
 * <p>Not thread-safe: owned by one {@link SqlFollower}.
 */
final class ObservedRow {
  private HolderToken holder;
  private long version;
  private long since;

  /** see records a read that arrived at {@code arrival}; a new (holder, version) restarts the wait. */
  void see(LeaseRow row, long arrival) {
    if (row == null || row.released()) {
      holder = null;
      return;
    }
    if (!row.holder().equals(holder) || row.version() != version) {
      holder = row.holder();
      version = row.version();
      since = arrival;
    }
  }

  /** since is the arrival of the first read that showed the current (holder, version). */
  long since() {
    return since;
  }

  /** left is how much of a wait of {@code waitNanos} remains at {@code now} (≤ 0 once it has passed). */
  long left(long waitNanos, long now) {
    return since + waitNanos - now;
  }
}
