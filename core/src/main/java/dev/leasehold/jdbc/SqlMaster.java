package dev.leasehold.jdbc;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderInfo;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.runtime.Term;

/**
 * SqlMaster handles the MASTER's inputs, and the naming of its loss. It holds {@code L(h)} on
 * the term session from before its take, and renews (S4) on that session every TTL/6 from the
 * send time of the last renewal that changed the row; that send time, plus
 * {@code TTL × (1 − ρ) − margin}, is its deadline, which only moves later. It steps down:
 *
 * <ul>
 *   <li>at the deadline ({@code LEASE_EXPIRED_LOCALLY});
 *   <li>when any statement on the term session fails or times out, or an answer comes from
 *       another session ({@code STORE_UNAVAILABLE}): the term is bound to its session;
 *   <li>when a renewal changes no row: at once (the role is FOLLOWER, {@code isLeader()}
 *       false), then it reads the row only to name the cause for the listeners, who still see a
 *       MASTER meanwhile: {@code KEY_DELETED} (no row, or released by someone else) or
 *       {@code KEY_TAKEN} (another holder or epoch);
 *   <li>on resign() ({@code RESIGNED}; {@code WORK_STALLED} from the runtime's watchdog), then
 *       sitting out the hold-off.
 * </ul>
 *
 * <p>Every way out but KEY_* sends S5 and keeps the term as an orphan until S5 succeeds, then
 * RELEASE_LOCK: the row is released before the lock wakes a follower, which then finds it free.
 *
 * <p>Not thread-safe: owned by one {@link SqlMachine}.
 */
final class SqlMaster extends SqlRole {
  private HolderToken holder;
  private long token;
  private long session;
  private long deadline;
  private long renewOp;
  private long renewSentAt;
  // The send time of the take or renewal the deadline counts from.
  private long confirmedSentAt;
  private long namingOp;

  SqlMaster(SqlMachine m) {
    super(m);
  }

  HolderToken holder() {
    return holder;
  }

  long token() {
    return token;
  }

  long session() {
    return session;
  }

  long deadline() {
    return deadline;
  }

  long confirmedSentAt() {
    return confirmedSentAt;
  }

  /** begin makes the CANDIDATE whose take, sent at {@code sentAt}, won on {@code session} MASTER. */
  void begin(HolderToken h, long epoch, long session, long sentAt, long now) {
    holder = h;
    token = epoch;
    this.session = session;
    deadline = config.deadline(sentAt);
    confirmedSentAt = sentAt;
    renewOp = 0;
    roles.elect(new Term(token, h.leaseId(), deadline, new SqlTerm(config.table(), config.name(), h, token, config.ttlNanos() / 1_000_000)),
        new LeaderInfo(config.candidateId(), token, h.leaseId()), now);
    fx.setTimer(SqlTimer.DEADLINE, deadline);
    fx.setTimer(SqlTimer.RENEW, sentAt + config.renewIntervalNanos());
    // A wake-up lock on the old holder: let it go, so the next waiting follower wakes and reads
    // who leads now.
    woken.letGo();
  }

  @Override
  void on(SqlInput in, long now) {
    if (roles.owesLoss()) {
      if (in.op() == namingOp) {
        named(in, now);
      }
      return;
    }
    if (in.op() == renewOp && in instanceof SqlInput.Renewed r) {
      renewOp = 0;
      if (r.changed()) {
        deadline = Math.max(deadline, config.deadline(renewSentAt));
        confirmedSentAt = renewSentAt;
        fx.setTimer(SqlTimer.DEADLINE, deadline);
        fx.setTimer(SqlTimer.RENEW, renewSentAt + config.renewIntervalNanos());
      } else {
        beginNaming();
      }
    }
  }

  @Override
  void onTimer(SqlTimer kind, long now) {
    if (kind == SqlTimer.RENEW && renewOp == 0) {
      renewSentAt = now;
      HolderToken h = holder;
      long e = token;
      renewOp = fx.call(op -> new SqlCommand.Renew(op, h, e));
    } else if (kind == SqlTimer.DEADLINE) {
      if (now - deadline >= 0) {
        stepDown(Cause.LEASE_EXPIRED_LOCALLY, now);
      } else {
        fx.setTimer(SqlTimer.DEADLINE, deadline);
      }
    }
  }

  @Override
  void resign(Cause cause, long now) {
    if (roles.owesLoss()) {
      return;
    }
    m.holdOff(now + config.resignHoldoffNanos());
    stepDown(cause, now);
  }

  /** sessionFailed ends the term: a statement on its session failed, or the session changed. */
  void sessionFailed(long now) {
    stepDown(Cause.STORE_UNAVAILABLE, now);
  }

  /** releaseOnClose gives back the row, then the lock. */
  void releaseOnClose() {
    m.release(holder, token);
    m.unlock(holder);
  }

  private void stepDown(Cause cause, long now) {
    renewOp = 0;
    roles.moveTo(ElectorState.FOLLOWER, cause, null, now);
    // The row first, then the lock: a follower the lock wakes finds the row released.
    orphans.add(new Orphans.Orphan(holder, token, false, null));
    m.release(holder, token);
    m.unlock(holder);
    m.read();
  }

  private void beginNaming() {
    roles.stepDownUntold();
    // The row is not ours: no S5. The lock goes now, so a waiting follower reads the row.
    m.unlock(holder);
    namingOp = fx.call(SqlCommand.Read::new);
  }

  private void named(SqlInput in, long now) {
    namingOp = 0;
    if (!(in instanceof SqlInput.RowRead r)) {
      // The loss owed since beginNaming; it also reports the outage.
      roles.moveTo(ElectorState.FOLLOWER, Cause.STORE_UNAVAILABLE, null, now);
      m.retryRead(now);
      return;
    }
    LeaseRow row = r.row();
    Cause cause;
    LeaderInfo successor = null;
    if (row == null || row.released()) {
      cause = Cause.KEY_DELETED;
    } else if (row.names(holder)) {
      // Someone edited our row (its epoch): no one else can hold our token, so it is ours to
      // release, which the follower does for an orphan.
      cause = row.epoch() == token ? Cause.KEY_DELETED : Cause.KEY_TAKEN;
      orphans.add(new Orphans.Orphan(holder, row.epoch(), false, null));
    } else {
      cause = Cause.KEY_TAKEN;
      successor = SqlMachine.info(row);
    }
    roles.moveTo(ElectorState.FOLLOWER, cause, successor, now);
    m.followRow(row, now);
  }
}
