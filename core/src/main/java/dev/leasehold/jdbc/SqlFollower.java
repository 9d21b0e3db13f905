package dev.leasehold.jdbc;

import dev.leasehold.LeaderInfo;

/**
 * SqlFollower handles the FOLLOWER's inputs (PROTOCOL.md, SQL backend, "Roles and
 * transitions", "Wake-up"). It reads the row (S1) and then:
 *
 * <ul>
 *   <li>releases (S5) a row that names one of its own {@link Orphans}, and reads again;
 *   <li>takes ({@link SqlCandidate}) a row that is absent, released, or has shown one
 *       (holder, version) for the observed wait {@code ttl × (1 + ρ)} since the first such
 *       reply <em>arrived</em> and is expired by the server's clock too, unless a resign
 *       hold-off applies;
 *   <li>otherwise waits in {@code GET_LOCK(L(holder), t)}, {@code t = min(pollInterval, time
 *       left of the observed wait)}: the holder's release or the end of its session wakes it
 *       (the lock is kept, and while the row names that holder it re-reads on a local timer
 *       instead of waiting again); a timeout is the poll. Being woken only makes it read.
 * </ul>
 *
 * <p>It reports each new holder as LEADER_CHANGED (a row naming one of its own attempts names
 * none) and lets go of a woken lock once the row names another holder.
 *
 * <p>Not thread-safe: owned by one {@link SqlMachine}.
 */
final class SqlFollower extends SqlRole {
  private final ObservedRow observed = new ObservedRow();
  private boolean started;
  // The S1 or GET_LOCK wait in flight (at most one), and the holder waited on.
  private long pendingOp;
  private HolderToken waitingOn;
  private boolean holdingOff;
  private long holdoffUntil;

  SqlFollower(SqlMachine m) {
    super(m);
  }

  /** start reads the row for the first time. */
  void start(long now) {
    if (!started) {
      started = true;
      read();
    }
  }

  /** awaiting tells whether a GET_LOCK wait is in flight. */
  boolean awaiting() {
    return pendingOp != 0 && waitingOn != null;
  }

  /** holdOff keeps this instance out of the election until {@code until}, or until another holder is seen. */
  void holdOff(long until) {
    holdingOff = true;
    holdoffUntil = until;
  }

  /** read sends S1, unless an S1 or a wait is already in flight. */
  void read() {
    if (pendingOp == 0) {
      waitingOn = null;
      pendingOp = fx.call(SqlCommand.Read::new);
    }
  }

  /** readAt re-reads at {@code at} on the local timer. */
  void readAt(long at) {
    fx.setTimer(SqlTimer.POLL, at);
  }

  /** retry re-reads after the error backoff. */
  void retry(long now) {
    readAt(now + fx.backoff(Math.max(1, reach.failures())));
  }

  @Override
  void on(SqlInput in, long now) {
    if (in.op() != pendingOp) {
      return;
    }
    pendingOp = 0;
    if (in instanceof SqlInput.RowRead r) {
      rowRead(r.row(), now);
    } else if (in instanceof SqlInput.Woken w) {
      if (w.acquired()) {
        // The holder released its lock or its session ended. The row decides; keep the lock,
        // so that waiting again does not return at once.
        woken.keep(waitingOn);
      }
      waitingOn = null;
      read();
    } else if (in instanceof SqlInput.Failed) {
      waitingOn = null;
      retry(now);
    }
  }

  @Override
  void onTimer(SqlTimer kind, long now) {
    if (kind == SqlTimer.POLL) {
      read();
    }
  }

  /** rowRead acts on an S1 reply that arrived at {@code now}. */
  void rowRead(LeaseRow row, long now) {
    if (row != null) {
      m.noteEpoch(row.epoch());
    }
    orphans.prune(row);
    observed.see(row, now);
    noteLeader(row, now);
    woken.letGoUnlessNamedBy(row);
    if (row != null && orphans.contains(row.holder())) {
      // An attempt or term of ours whose end the row has not seen: release it, then look again.
      m.release(row.holder(), row.epoch());
      read();
      return;
    }
    if (mayTake(row, now)) {
      if (holdingOff && now - holdoffUntil < 0) {
        // The row is free and no lock is there to wait on: look again soon, so the hold-off
        // ends as soon as another holder shows (not a poll interval later), at most at its end.
        readAt(Math.min(holdoffUntil, now + config.waitFloorNanos()));
        return;
      }
      m.take(row, now);
      return;
    }
    long left = observed.left(config.observedWaitNanos(row.ttlMicros()), now);
    long t = Math.min(config.pollIntervalNanos(), Math.max(left, config.waitFloorNanos()));
    if (woken.isOn(row) || !row.holder().wellFormed()) {
      readAt(now + t);
    } else {
      HolderToken h = row.holder();
      waitingOn = h;
      pendingOp = fx.call(op -> new SqlCommand.Await(op, h, t));
    }
  }

  private boolean mayTake(LeaseRow row, long now) {
    return row == null
        || row.released()
        || row.expired() && observed.left(config.observedWaitNanos(row.ttlMicros()), now) <= 0;
  }

  private void noteLeader(LeaseRow row, long now) {
    LeaderInfo seen =
        row == null || row.released() || m.ownToken(row.holder()) ? null : SqlMachine.info(row);
    if (seen != null) {
      // Someone else holds the row: the hold-off after resign() has done its job.
      holdingOff = false;
    }
    roles.see(seen, now);
  }
}
