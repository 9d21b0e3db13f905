package dev.leasehold.etcd.protocol;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderInfo;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.Reachability;
import dev.leasehold.runtime.RoleMachine;
import dev.leasehold.runtime.Roles;
import dev.leasehold.runtime.StepEffects;
import dev.leasehold.runtime.Term;
import dev.leasehold.runtime.Transitions;
import java.util.random.RandomGenerator;

/**
 * SessionElection is one election riding on a session's lease (PROTOCOL.md §11), as a pure
 * state machine: it owns no lease, and leads only while the session's lease is live.
 *
 * <ul>
 *   <li><b>Read first.</b> A new election waits for the session's read of the prefix (or its own
 *       read of the key) before it campaigns, for at most a poll interval: a key already held
 *       costs no transaction.
 *   <li><b>Campaign.</b> While the session's lease is live and the key is absent or unknown, the
 *       compare-and-swap {@code If CreateRevision(K) == 0 Then Put(K, id, lease) Else Get(K)};
 *       the term's token is the put's revision. Only the reply to the campaign in flight, on
 *       the lease still held, before the session's deadline, makes a MASTER.
 *   <li><b>Term.</b> A MASTER stays one until the session's deadline passes or its lease ends
 *       ({@link SessionInput.Ended}), or the watch shows the key deleted or rewritten.
 *   <li><b>Resign and close.</b> The role changes first, then the fenced delete {@code If
 *       ModRevision(K) == token Then Delete(K)}, retried until answered or the lease ends.
 *       Siblings on the session are untouched. A resigned election sits out the resign
 *       hold-off.
 *   <li><b>Store trouble.</b> The session's report that its lease calls keep failing, and that
 *       they recovered, becomes this election's STORE_UNAVAILABLE and STORE_RECOVERED, in the
 *       role it has: the lease's deadline, not the report, ends a term. The session counted the
 *       failures already, so one report is an outage ({@link Reachability} of 1).
 *   <li><b>Never adopt a key of its own campaigns.</b> A key on the session's own lease that is
 *       not this election's term (a campaign whose reply came late or never, a resign not yet
 *       applied) is deleted with a fenced delete, never led on.
 *   <li><b>Moves</b> (spreading, PROTOCOL.md §11.7). Asked to, a MASTER steps down first and
 *       hands its key to another member in one transaction fenced on its token; the target
 *       adopts a key that a move wrote (create revision ≠ mod revision), naming it, on its
 *       current lease, above every term it gave up, with no campaign of its own outstanding.
 *   <li><b>Unhealthy</b> ({@link Input.HealthChanged}, from a spreading session's health check).
 *       It does not campaign; its session hands its term to a healthy member by the same move,
 *       published as {@code UNHEALTHY}. It still adopts a key moved to it (its session then
 *       moves it on).
 * </ul>
 *
 * <p>Its roles are FOLLOWER, MASTER and STOPPED ({@link Transitions#SESSION_ELECTION}): a
 * campaign in flight is not a role of its own. Every move goes through its {@link Roles}.
 *
 * <p>Not thread-safe: the session's event loop owns an instance.
 */
public final class SessionElection extends RoleMachine {
  /** Timer is what an election arms: a campaign retry, a delete retry, the resign hold-off. */
  enum Timer {
    CAMPAIGN,
    DELETE,
    HOLDOFF
  }

  private static final class Fx extends StepEffects<Timer> {
    Fx(ProtocolConfig c, RandomGenerator random) {
      super(Timer.class, c.backoffInitialNanos(), c.backoffMaxNanos(), random);
    }
  }

  private final ProtocolConfig config;
  private final Fx fx;
  private final Roles roles;
  private boolean started;

  // The session's lease, as last told.
  private long leaseId;
  private long deadline = Long.MIN_VALUE;
  private long renewalSentAt = Long.MIN_VALUE;

  // The key, as last seen (key null and keyKnown: absent).
  private boolean keyKnown;
  private KeyRecord key;
  private long knownRevision;

  private long token;
  private long campaignOp;
  private long campaignFailures;
  private long deleteOp;
  private long deleteToken;
  private long deleteFailures;
  private long transferOp;
  private SessionMember movingTo;
  private long movingCreateRevision;
  // Spreading: another member is preferred for this key when free, so this one holds back a
  // poll interval from the time it saw the key free.
  private boolean holdingBack;
  // Spreading with a health check: the session is unhealthy, so this election does not campaign,
  // and a move asked of it is an unhealthy yield (UNHEALTHY), not a rebalancing one (RESIGNED).
  private boolean unhealthy;
  private long freeSince = Long.MIN_VALUE;
  // The highest token of a term this election gave up: a moved key at or below it is one this
  // election moved away itself (or resigned), never adopted again.
  private long gaveUp;
  // The revision of this election's first view of its key: a key moved at or before it may be
  // one that an earlier election of the same name on this session led (closed, its delete not
  // yet applied), so never adopted: its token would be that term's again.
  private long firstRevision;
  private long holdoffUntil = Long.MIN_VALUE;
  // Until the session's read of the prefix tells the key, a new election does not campaign
  // (a campaign is a raft proposal even when it loses); it guesses after a poll interval.
  private long firstReadBy = Long.MIN_VALUE;
  private boolean everRead;

  /**
   * SessionElection runs with the session's protocol settings; {@code random} jitters retries.
   *
   * @param config the session's protocol settings
   * @param random the source of retry jitter; a seeded one makes a simulation repeatable
   */
  public SessionElection(ProtocolConfig config, RandomGenerator random) {
    this(config, new Fx(config, random));
  }

  private SessionElection(ProtocolConfig config, Fx fx) {
    // The session counted the failures already: its one report is an outage.
    super(Transitions.SESSION_ELECTION, fx, new Reachability(1));
    this.config = config;
    this.fx = fx;
    this.roles = roles();
  }

  /** left cancels nothing: the timers are the follower's, and close cancels them all. */
  @Override
  protected void left(ElectorState from, ElectorState to) {}

  @Override
  protected void apply(Input in, long now) {
    ElectorState role = roles.role();
    if (in instanceof Input.Start) {
      if (!started && role != ElectorState.STOPPED) {
        started = true;
        fx.add(new SessionCommand.Join());
      }
    } else if (in instanceof Input.Close) {
      close(now);
    } else if (in instanceof EtcdInput.CampaignWon w) {
      won(w, now);
    } else if (role == ElectorState.STOPPED) {
      if (in instanceof SessionInput.DeleteFailed f && f.op() == deleteOp) {
        // The election no longer runs: the session retries it (or its lease's end takes the key).
        deleteOp = 0;
        fx.add(new SessionCommand.DeleteLater(deleteToken));
      }
    } else if (in instanceof SessionInput.Live l) {
      live(l, now);
    } else if (in instanceof SessionInput.Ended e) {
      ended(e, now);
    } else if (in instanceof SessionInput.Unavailable) {
      roles.failed(now);
    } else if (in instanceof SessionInput.Recovered) {
      roles.progressed(now);
    } else if (in instanceof EtcdInput.CampaignLost l) {
      lost(l, now);
    } else if (in instanceof EtcdInput.CampaignFailed f && f.op() == campaignOp) {
      campaignOp = 0;
      campaignFailures++;
      fx.setTimer(Timer.CAMPAIGN, now + fx.backoff(campaignFailures));
    } else if (in instanceof SessionInput.KeySeen k) {
      seen(k.key(), k.revision(), now);
    } else if (in instanceof SessionInput.Deleted d && d.op() == deleteOp) {
      deleteOp = 0;
      deleteFailures = 0;
      if (d.applied()) {
        seen(null, d.revision(), now);
      } else if (key != null && key.modRevision() == deleteToken) {
        // The key is no longer that term's: what it is now, the next campaign's read tells.
        keyKnown = false;
        key = null;
      }
      campaignIfDue(now);
    } else if (in instanceof SessionInput.DeleteFailed f && f.op() == deleteOp) {
      deleteOp = 0;
      deleteFailures++;
      fx.setTimer(Timer.DELETE, now + fx.backoff(deleteFailures));
    } else if (in instanceof SessionInput.Preferred p) {
      holdingBack = !p.preferred();
      campaignIfDue(now);
    } else if (in instanceof Input.HealthChanged h) {
      unhealthy = !h.healthy();
      campaignIfDue(now);
    } else if (in instanceof SessionInput.MoveTo m) {
      moveTo(m, now);
    } else if (in instanceof SessionInput.Transferred t && t.op() == transferOp) {
      transferOp = 0;
      if (t.applied()) {
        seen(new KeyRecord(movingTo.candidateId(), movingTo.leaseId(), movingCreateRevision, t.revision()),
            t.revision(), now);
      }
      campaignIfDue(now);
    } else if (in instanceof SessionInput.TransferFailed f && f.op() == transferOp) {
      // It may still have been applied: the watch tells; until then the key, if still this
      // session's, is an orphan like any other (its fenced delete fails if the move landed).
      transferOp = 0;
      campaignIfDue(now);
    } else if (in instanceof Input.Resign r) {
      if (role == ElectorState.MASTER) {
        long t = token;
        stepDown(r.cause(), now);
        holdoffUntil = now + Math.max(config.resignHoldoffNanos(), config.backoffInitialNanos());
        fx.setTimer(Timer.HOLDOFF, holdoffUntil);
        delete(t);
      }
    } else if (in instanceof Input.TimerFired t) {
      Timer kind = fx.fired(t);
      if (kind == Timer.DELETE && deleteToken != 0 && deleteOp == 0 && leaseId != 0) {
        delete(deleteToken);
      } else if (kind != null) {
        campaignIfDue(now);
      }
    }
  }

  // ---- the session's lease ----

  private void live(SessionInput.Live l, long now) {
    if (l.leaseId() != leaseId) {
      leaseId = l.leaseId();
      campaignFailures = 0;
    }
    deadline = l.deadline();
    renewalSentAt = l.renewalSentAt();
    if (!everRead && firstReadBy == Long.MIN_VALUE) {
      firstReadBy = now + config.pollIntervalNanos();
      fx.setTimer(Timer.CAMPAIGN, firstReadBy);
    }
    campaignIfDue(now);
  }

  private void ended(SessionInput.Ended e, long now) {
    if (e.leaseId() != leaseId) {
      return;
    }
    if (e.cause() == Cause.CLOSED) {
      // The session closes: its revoke takes every key, so the election stops without a delete.
      leaseId = 0;
      close(now);
      return;
    }
    if (roles.role() == ElectorState.MASTER) {
      stepDown(e.cause(), now);
    }
    // Whatever rode on that lease goes with its revocation or expiry.
    leaseId = 0;
    deadline = Long.MIN_VALUE;
    renewalSentAt = Long.MIN_VALUE;
    campaignOp = 0;
    deleteOp = 0;
    deleteToken = 0;
    transferOp = 0;
    fx.cancelTimer(Timer.DELETE);
  }

  private boolean live(long now) {
    return leaseId != 0 && now < deadline;
  }

  // ---- campaign ----

  private void campaignIfDue(long now) {
    if (!started || roles.role() != ElectorState.FOLLOWER || campaignOp != 0 || deleteOp != 0
        || transferOp != 0) {
      return;
    }
    if (keyKnown && adoptable(key, now)) {
      adopt(key, now);
      return;
    }
    if (keyKnown && key != null && leaseId != 0 && key.leaseId() == leaseId) {
      // This session's key, seen while a campaign was in flight whose reply then never came
      // (it timed out): not a term of this election's, so deleted, never led on.
      delete(key.modRevision());
      return;
    }
    if (unhealthy || now < holdoffUntil || !live(now) || keyKnown && key != null
        || !everRead && now < firstReadBy) {
      return;
    }
    if (holdingBack && keyKnown && freeSince != Long.MIN_VALUE && now < freeSince + config.pollIntervalNanos()) {
      fx.setTimer(Timer.CAMPAIGN, freeSince + config.pollIntervalNanos());
      return;
    }
    fx.cancelTimer(Timer.CAMPAIGN);
    campaignOp = fx.id();
    fx.add(new SessionCommand.Campaign(campaignOp, leaseId));
  }

  private void won(EtcdInput.CampaignWon w, long now) {
    long rev = w.createRevision();
    boolean current = w.op() == campaignOp;
    if (current) {
      campaignOp = 0;
      campaignFailures = 0;
    }
    if (!current || roles.role() != ElectorState.FOLLOWER || !live(now)) {
      // A put this election will not lead on: a late reply, a close, a deadline passed.
      if (leaseId != 0) {
        delete(rev);
      }
      return;
    }
    token = rev;
    if (firstRevision == 0) {
      firstRevision = rev;
    }
    key = new KeyRecord(config.candidateId(), leaseId, rev, rev);
    keyKnown = true;
    knownRevision = Math.max(knownRevision, rev);
    fx.cancelTimer(Timer.CAMPAIGN);
    roles.elect(new Term(rev, leaseId, deadline), new LeaderInfo(config.candidateId(), rev, leaseId), now);
  }

  private void lost(EtcdInput.CampaignLost l, long now) {
    if (l.op() != campaignOp) {
      return;
    }
    campaignOp = 0;
    campaignFailures = 0;
    seen(l.holder(), l.revision(), now);
  }

  // ---- the key ----

  private void seen(KeyRecord k, long revision, long now) {
    if (revision < knownRevision) {
      return;
    }
    knownRevision = revision;
    if (firstRevision == 0) {
      firstRevision = revision;
    }
    if (k == null && (key != null || !keyKnown || freeSince == Long.MIN_VALUE)) {
      freeSince = now;
    } else if (k != null) {
      freeSince = Long.MIN_VALUE;
    }
    keyKnown = true;
    everRead = true;
    key = k;
    if (roles.role() == ElectorState.MASTER) {
      if (k == null) {
        stepDown(Cause.KEY_DELETED, now);
      } else if (k.modRevision() != token || k.leaseId() != leaseId) {
        gaveUp = Math.max(gaveUp, token);
        token = 0;
        roles.moveTo(ElectorState.FOLLOWER, Cause.KEY_TAKEN, ElectionMachine.info(k), now);
        return;
      } else {
        return;
      }
    }
    if (k == null) {
      campaignIfDue(now);
    } else if (adoptable(k, now)) {
      adopt(k, now);
    } else if (k.leaseId() == leaseId && leaseId != 0) {
      // This session's key but not a term of this election's, nor moved to it: never adopted.
      if (campaignOp == 0 && transferOp == 0 && (deleteOp == 0 || deleteToken != k.modRevision())) {
        delete(k.modRevision());
      }
    } else {
      roles.see(ElectionMachine.info(k), now);
    }
  }

  // ---- moves (PROTOCOL.md §11.7) ----

  /**
   * adoptable is the target's rule (TLA+ {@code MovedTo}, {@code Adopt}): a key a move wrote
   * (create revision ≠ mod revision: a campaign's put sets both), on this session's current lease,
   * naming this candidate, above every term of this election it gave up and above its first view
   * of the key (a key moved before this election existed may be its predecessor's term, under the
   * same name on this session), while the lease is live and no campaign or move of its own is
   * outstanding.
   */
  private boolean adoptable(KeyRecord k, long now) {
    return k != null && roles.role() == ElectorState.FOLLOWER && live(now) && k.leaseId() == leaseId
        && k.createRevision() != k.modRevision() && k.modRevision() > Math.max(gaveUp, firstRevision)
        && config.candidateId().equals(k.holderId()) && campaignOp == 0 && transferOp == 0;
  }

  private void adopt(KeyRecord k, long now) {
    token = k.modRevision();
    fx.cancelTimer(Timer.CAMPAIGN);
    roles.elect(new Term(token, leaseId, deadline), new LeaderInfo(config.candidateId(), token, leaseId), now);
  }

  private void moveTo(SessionInput.MoveTo m, long now) {
    if (roles.role() != ElectorState.MASTER || m.token() != token || transferOp != 0 || deleteOp != 0
        || !live(now) || m.to().leaseId() == leaseId) {
      return;
    }
    long t = token;
    movingTo = m.to();
    movingCreateRevision = key != null && key.modRevision() == t ? key.createRevision() : t;
    // The role changes first: the target may lead as soon as the move is applied.
    stepDown(unhealthy ? Cause.UNHEALTHY : Cause.RESIGNED, now);
    transferOp = fx.id();
    fx.add(new SessionCommand.Transfer(transferOp, t, m.to()));
  }

  // ---- resign, step-down, close ----

  private void delete(long t) {
    deleteOp = fx.id();
    deleteToken = t;
    fx.add(new SessionCommand.FencedDelete(deleteOp, t));
  }

  private void stepDown(Cause cause, long now) {
    gaveUp = Math.max(gaveUp, token);
    token = 0;
    roles.moveTo(ElectorState.FOLLOWER, cause, null, now);
  }

  private void close(long now) {
    if (roles.role() == ElectorState.STOPPED) {
      return;
    }
    long t = roles.role() == ElectorState.MASTER ? token : 0;
    token = 0;
    roles.moveTo(ElectorState.STOPPED, Cause.CLOSED, roles.leader(), now);
    fx.cancelAllTimers();
    if (started) {
      fx.add(new SessionCommand.Leave());
    }
    if (t != 0 && leaseId != 0) {
      delete(t);
    }
  }

  // ---- Machine ----

  /** deadline is the session's deadline while MASTER: every term on the session ends by it. */
  /**
   * transferUnsupported: an election on a session keeps no queue of its own; a spreading
   * session moves its elections between members by the same fenced transaction.
   */
  @Override
  public String transferUnsupported() {
    return "an election on a session keeps no queue of candidates (PROTOCOL.md §11.2); spread(true) on the"
        + " session moves its elections between members";
  }

  @Override
  public long deadline() {
    return roles.role() == ElectorState.MASTER ? deadline : Long.MIN_VALUE;
  }

  /** renewalSentAt is the send time the session's deadline counts from, as the session last told. */
  @Override
  public long renewalSentAt() {
    return renewalSentAt;
  }
}
