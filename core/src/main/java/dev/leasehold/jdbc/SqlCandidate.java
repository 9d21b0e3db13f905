package dev.leasehold.jdbc;

import dev.leasehold.ElectorState;

/**
 * SqlCandidate handles the CANDIDATE's inputs: on a fresh holder token {@code h} it takes
 * {@code L(h)} with {@code GET_LOCK(L(h), 0)} (S6), then sends the take, S2 when S1 showed no
 * row (epoch 1 + the largest read), S3 otherwise (pinned to the row's holder and version, so
 * the token is the read epoch + 1), remembering its send time {@code s}.
 *
 * <ul>
 *   <li>Won, on the lock's session, and {@code now < s + TTL × (1 − ρ) − margin}: MASTER.
 *   <li>Won too late: S5, RELEASE_LOCK, FOLLOWER; the term would start past its deadline.
 *   <li>Lost (no row changed): RELEASE_LOCK, FOLLOWER, read at once.
 *   <li>Failed: the store ended the session (the lock went with it); {@code h} becomes an
 *       orphan, FOLLOWER, read after the backoff. A process never leads on a take whose
 *       success it did not see.
 * </ul>
 *
 * <p>Not thread-safe: owned by one {@link SqlMachine}.
 */
final class SqlCandidate extends SqlRole {
  private HolderToken holder;
  private long epoch;
  private LeaseRow basis;
  private long lockOp;
  private long lockSession;
  private long takeOp;
  private long takeSentAt;
  private boolean takeSent;

  SqlCandidate(SqlMachine m) {
    super(m);
  }

  /** holder is the current attempt's token (null before the first). */
  HolderToken holder() {
    return holder;
  }

  /** begin moves a FOLLOWER that may take {@code row} (null: none) to CANDIDATE. */
  void begin(LeaseRow row, long now) {
    roles.moveTo(ElectorState.CANDIDATE, null, null, now);
    holder = fx.token();
    basis = row;
    epoch = row == null ? m.maxEpoch() + 1 : row.epoch() + 1;
    takeSent = false;
    takeOp = 0;
    HolderToken h = holder;
    lockOp = fx.call(op -> new SqlCommand.Lock(op, h));
  }

  @Override
  void on(SqlInput in, long now) {
    if (in.op() == lockOp) {
      lockOp = 0;
      if (in instanceof SqlInput.Locked l && l.acquired()) {
        lockSession = l.session();
        take(now);
      } else {
        // GET_LOCK(L(h), 0) on a fresh random token fails only with its session (or if
        // someone else holds that very name): nothing was written.
        back(now, true);
      }
    } else if (in.op() == takeOp) {
      takeOp = 0;
      if (in instanceof SqlInput.Taken t) {
        taken(t, now);
      } else {
        // Outcome unknown: the take may have been applied, now or later.
        orphans.add(new Orphans.Orphan(holder, epoch, true, basis));
        back(now, true);
      }
    }
  }

  @Override
  void onTimer(SqlTimer kind, long now) {}

  private void take(long now) {
    HolderToken h = holder;
    long e = epoch;
    LeaseRow b = basis;
    takeSentAt = now;
    takeSent = true;
    takeOp = fx.call(op -> new SqlCommand.Take(op, h, e, b));
  }

  private void taken(SqlInput.Taken t, long now) {
    if (!t.won()) {
      m.unlock(holder);
      back(now, false);
      return;
    }
    m.noteEpoch(epoch);
    if (t.session() == lockSession && now - config.deadline(takeSentAt) < 0) {
      m.lead(holder, epoch, lockSession, takeSentAt, now);
      return;
    }
    // Too late (or, defensively, not on the session that holds L(h)): leading now would mean
    // leading past the deadline, or without the wake-up. Give the row back, then the lock.
    orphans.add(new Orphans.Orphan(holder, epoch, false, null));
    m.release(holder, epoch);
    m.unlock(holder);
    back(now, false);
  }

  private void back(long now, boolean afterError) {
    roles.moveTo(ElectorState.FOLLOWER, null, null, now);
    if (afterError) {
      m.retryRead(now);
    } else {
      m.read();
    }
  }

  /** releaseOnClose gives back what the attempt may hold: S5 (harmless if the take did not apply), the lock. */
  void releaseOnClose() {
    if (takeSent) {
      m.release(holder, epoch);
    }
    m.unlock(holder);
  }
}
