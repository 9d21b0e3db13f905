package dev.leasehold.protocol;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderInfo;
import dev.leasehold.LeadershipEvent.Cause;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * ElectionMachine is the Leasehold protocol as a pure state machine: it takes an
 * {@link Input} and the current monotonic time, changes its state, and returns the
 * {@link Command}s its driver must carry out. It does no I/O, reads no clock and starts no
 * thread, so a test or a simulation can drive it step by step.
 *
 * <p>The roles and their legal moves are in {@link Transitions}; PROTOCOL.md is the normative
 * description. In brief: a FOLLOWER reads and watches the key and becomes CANDIDATE when it
 * is absent; a CANDIDATE grants a lease and commits the compare-and-swap; a MASTER renews
 * every TTL/6 and extends its local deadline only when a keep-alive ack is followed by a
 * linearizable read, sent after the ack, that shows the key still bound to its lease and
 * carries the ack's raft term; it steps down at the deadline or as soon as it learns the key
 * or lease is gone.
 *
 * <p>Not thread-safe: one thread (the driver's event loop) owns an instance.
 */
public final class ElectionMachine {
  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  private final ProtocolConfig config;
  private final RandomGenerator random;

  private ElectorState role = ElectorState.FOLLOWER;
  private boolean started;
  private List<Command> out = new ArrayList<>();

  private long nextId = 1;
  private final Map<TimerKind, Long> timerSeq = new EnumMap<>(TimerKind.class);

  // What this instance knows of the key.
  private LeaderInfo leader;
  private boolean keyAbsent;
  private long knownRevision;
  // The last lease this instance gave up; until etcd deletes its key, that key names no leader.
  private long abandonedLeaseId;

  // Follower.
  private long pollOp;
  private long holdoffUntil = Long.MIN_VALUE;

  // Candidate.
  private long grantOp;
  private long grantSentAt;
  private long campaignOp;

  // Held lease: a follower's standby lease, the candidate's, or the master's. Its deadline is
  // the local time until which etcd surely keeps it, from the send time of its grant or of its
  // last confirmed renewal.
  private long leaseId;
  private long grantedTtlSeconds;
  private long deadline = Long.MIN_VALUE;
  private long leaseBaseSentAt;
  private long standbyGrantOp;
  private long standbyRetryAt = Long.MIN_VALUE;

  // Master.
  private long token;
  private long keepAliveOp;
  private long keepAliveSentAt;
  private long confirmOp;
  private long confirmSentAt;
  private long confirmTtlSeconds;
  private long confirmTerm;
  private long renewFailures;
  private long probeOp;
  private long probeLeaseId;
  private boolean lossPending;

  // Watch.
  private long watchId;
  private long watchFailures;

  // Reachability.
  private long failures;
  private boolean unavailable;

  /** ElectionMachine starts as a FOLLOWER that has not started; {@code random} draws jitter. */
  public ElectionMachine(ProtocolConfig config, RandomGenerator random) {
    this.config = Objects.requireNonNull(config, "config");
    this.random = Objects.requireNonNull(random, "random");
  }

  /** role is the current role. */
  public ElectorState role() {
    return role;
  }

  /** leader is the leader this instance last saw (itself when MASTER), or null. */
  public LeaderInfo leader() {
    return leader;
  }

  /**
   * deadline is the local time (monotonic clock) until which etcd surely keeps the held lease:
   * the MASTER's deadline; for a follower, its standby lease's; Long.MIN_VALUE with no lease.
   */
  public long deadline() {
    return deadline;
  }

  /** fencingToken is the MASTER's token, or 0 when not MASTER. */
  public long fencingToken() {
    return role == ElectorState.MASTER ? token : 0;
  }

  /** leaseId is the lease this instance holds (standby, CANDIDATE or MASTER), or 0. */
  public long leaseId() {
    return leaseId;
  }

  /** grantedTtlSeconds is the TTL etcd granted the current lease, or 0. */
  public long grantedTtlSeconds() {
    return grantedTtlSeconds;
  }

  /** isUnavailable is true between an ETCD_UNAVAILABLE report and the next success. */
  public boolean isUnavailable() {
    return unavailable;
  }

  /**
   * step applies one input at monotonic time {@code now} (nanoseconds) and returns the
   * commands to carry out, in order.
   */
  public List<Command> step(Input input, long now) {
    Objects.requireNonNull(input, "input");
    out = new ArrayList<>();
    if (role == ElectorState.STOPPED) {
      // A grant that was in flight at close must not leave a lease behind.
      if (input instanceof Input.LeaseGranted g) {
        out.add(new Command.Revoke(g.leaseId()));
      }
      return out;
    }
    if (input instanceof Input.Start) {
      onStart(now);
    } else if (input instanceof Input.Resign) {
      onResign(now);
    } else if (input instanceof Input.Close) {
      onClose(now);
    } else if (input instanceof Input.PollResult r) {
      onPollResult(r, now);
    } else if (input instanceof Input.PollFailed f) {
      onPollFailed(f, now);
    } else if (input instanceof Input.LeaseGranted g) {
      onLeaseGranted(g, now);
    } else if (input instanceof Input.GrantFailed f) {
      onGrantFailed(f, now);
    } else if (input instanceof Input.CampaignWon w) {
      onCampaignWon(w, now);
    } else if (input instanceof Input.CampaignLost l) {
      onCampaignLost(l, now);
    } else if (input instanceof Input.CampaignFailed f) {
      onCampaignFailed(f, now);
    } else if (input instanceof Input.KeepAliveAcked a) {
      onKeepAliveAcked(a, now);
    } else if (input instanceof Input.KeepAliveFailed f) {
      onKeepAliveFailed(f, now);
    } else if (input instanceof Input.ConfirmRead r) {
      onConfirmRead(r, now);
    } else if (input instanceof Input.ConfirmFailed f) {
      onConfirmFailed(f, now);
    } else if (input instanceof Input.LeaseProbed p) {
      onLeaseProbed(p, now);
    } else if (input instanceof Input.WatchPut p) {
      onWatchPut(p, now);
    } else if (input instanceof Input.WatchDelete d) {
      onWatchDelete(d, now);
    } else if (input instanceof Input.WatchFailed f) {
      onWatchFailed(f, now);
    } else if (input instanceof Input.TimerFired t) {
      onTimer(t, now);
    }
    return out;
  }

  // ---- user requests ----

  private void onStart(long now) {
    if (started) {
      return;
    }
    started = true;
    poll();
  }

  private void onResign(long now) {
    if (role == ElectorState.MASTER && !lossPending) {
      holdoffUntil = now + config.resignHoldoffNanos();
      loseLeadership(Cause.RESIGNED, null, now);
    }
  }

  private void onClose(long now) {
    for (TimerKind k : TimerKind.values()) {
      cancelTimer(k);
    }
    if (watchId != 0) {
      out.add(new Command.CancelWatch(watchId));
      watchId = 0;
    }
    if (probeLeaseId != 0) {
      out.add(new Command.Revoke(probeLeaseId));
      probeLeaseId = 0;
    }
    if (leaseId != 0) {
      out.add(new Command.Revoke(leaseId));
    }
    // A pending loss still owes its listeners the end of the term: CLOSED is that end.
    ElectorState from = lossPending ? ElectorState.MASTER : role;
    moveTo(ElectorState.STOPPED);
    publish(from, ElectorState.STOPPED, Cause.CLOSED, null, now);
    dropLease();
    leader = null;
    lossPending = false;
  }

  // ---- follower ----

  private void poll() {
    if (pollOp == 0) {
      pollOp = id();
      out.add(new Command.Poll(pollOp));
    }
  }

  private void onPollResult(Input.PollResult r, long now) {
    if (r.op() != pollOp) {
      return;
    }
    pollOp = 0;
    succeeded(now);
    observe(r.key(), r.revision(), now);
    ensureWatch();
    if (role == ElectorState.FOLLOWER && !lossPending) {
      if (keyAbsent) {
        campaignOrWait(now);
      } else {
        setTimer(TimerKind.POLL, now + config.pollIntervalNanos());
        maybeAcquireStandby(now);
      }
    }
  }

  /**
   * maybeAcquireStandby grants a lease a follower keeps alive while someone else leads, so
   * that taking over costs one transaction instead of a grant and a transaction.
   */
  private void maybeAcquireStandby(long now) {
    if (!config.standbyLease() || role != ElectorState.FOLLOWER || lossPending || keyAbsent
        || leaseId != 0 || standbyGrantOp != 0 || grantOp != 0 || now < standbyRetryAt
        // After resign(), a grant of ours would compete with the successor's transaction for
        // the same raft round trips; wait until the successor is seen (that ends the hold-off).
        || now < holdoffUntil) {
      return;
    }
    standbyGrantOp = id();
    grantSentAt = now;
    out.add(new Command.GrantLease(standbyGrantOp, config.requestedTtlSeconds()));
  }

  private void onPollFailed(Input.PollFailed f, long now) {
    if (f.op() != pollOp) {
      return;
    }
    pollOp = 0;
    failed(now);
    if (role == ElectorState.FOLLOWER) {
      setTimer(TimerKind.POLL, now + backoff(failures));
    }
  }

  /**
   * observe records what a read or watch saw of the key, ignoring anything older than what
   * is already known; a follower reports a new leader.
   */
  private void observe(KeyRecord key, long revision, long now) {
    if (revision < knownRevision) {
      return;
    }
    knownRevision = revision;
    if (role != ElectorState.FOLLOWER) {
      return;
    }
    if (key != null && leaseId != 0 && key.leaseId() == leaseId) {
      // A CAS of ours that we saw lose was applied after all (a retried copy reaching etcd
      // once the key was free): the key is bound to the standby lease we renew as a follower,
      // and would stay so. Revoking the lease deletes the key.
      abandonLease();
    }
    keyAbsent = key == null;
    LeaderInfo seen = key == null || key.leaseId() == abandonedLeaseId ? null : info(key);
    if (seen != null) {
      // Someone else took over: the hold-off after resign() has done its job.
      holdoffUntil = Long.MIN_VALUE;
    }
    if (!Objects.equals(seen, leader)) {
      leader = seen;
      if (seen != null && !lossPending) {
        publish(ElectorState.FOLLOWER, ElectorState.FOLLOWER, Cause.LEADER_CHANGED, seen, now);
      }
    }
  }

  private void campaignOrWait(long now) {
    if (now < holdoffUntil) {
      setTimer(TimerKind.POLL, holdoffUntil);
      return;
    }
    cancelTimer(TimerKind.POLL);
    moveTo(ElectorState.CANDIDATE);
    if (leaseId != 0) {
      // A standby lease with at least a renewal interval left goes straight to the CAS.
      if (deadline - now >= renewInterval()) {
        campaignOp = id();
        out.add(new Command.Campaign(campaignOp, leaseId));
        return;
      }
      abandonLease();
    }
    if (standbyGrantOp != 0) {
      // A standby grant is already on its way: campaign with it when it arrives.
      grantOp = standbyGrantOp;
      standbyGrantOp = 0;
      return;
    }
    grantOp = id();
    grantSentAt = now;
    out.add(new Command.GrantLease(grantOp, config.requestedTtlSeconds()));
  }

  // ---- candidate ----

  private void onLeaseGranted(Input.LeaseGranted g, long now) {
    if (g.op() == standbyGrantOp && role == ElectorState.FOLLOWER && leaseId == 0) {
      standbyGrantOp = 0;
      succeeded(now);
      holdLease(g, now);
      return;
    }
    if (g.op() != grantOp || role != ElectorState.CANDIDATE) {
      out.add(new Command.Revoke(g.leaseId()));
      return;
    }
    grantOp = 0;
    succeeded(now);
    holdLease(g, now);
    campaignOp = id();
    out.add(new Command.Campaign(campaignOp, leaseId));
  }

  /**
   * holdLease takes a granted lease: etcd cannot expire it before the grant's send time plus
   * the granted TTL, since the grant was applied after it was sent.
   */
  private void holdLease(Input.LeaseGranted g, long now) {
    leaseId = g.leaseId();
    grantedTtlSeconds = g.ttlSeconds();
    leaseBaseSentAt = grantSentAt;
    deadline = config.deadline(grantSentAt, grantedTtlSeconds);
    setTimer(TimerKind.DEADLINE, deadline);
    setTimer(TimerKind.RENEW, Math.max(now, leaseBaseSentAt + renewInterval()));
  }

  private void onGrantFailed(Input.GrantFailed f, long now) {
    if (f.op() == standbyGrantOp) {
      standbyGrantOp = 0;
      failed(now);
      standbyRetryAt = now + backoff(failures);
      return;
    }
    if (f.op() != grantOp) {
      return;
    }
    grantOp = 0;
    failed(now);
    moveTo(ElectorState.FOLLOWER);
    setTimer(TimerKind.POLL, now + backoff(failures));
  }

  private void onCampaignWon(Input.CampaignWon w, long now) {
    if (w.op() != campaignOp || role != ElectorState.CANDIDATE) {
      return;
    }
    campaignOp = 0;
    succeeded(now);
    won(w.createRevision(), now);
  }

  private void won(long createRevision, long now) {
    if (leaseId == 0 || now >= deadline) {
      // Too slow to be useful (or the lease is gone): holding the key now would mean leading
      // past the deadline. Revoking removes the key.
      if (leaseId != 0) {
        abandonLease();
      } else {
        dropLease();
      }
      moveTo(ElectorState.FOLLOWER);
      poll();
      return;
    }
    knownRevision = Math.max(knownRevision, createRevision);
    token = createRevision;
    renewFailures = 0;
    moveTo(ElectorState.MASTER);
    leader = new LeaderInfo(config.candidateId(), token, leaseId);
    publish(ElectorState.CANDIDATE, ElectorState.MASTER, Cause.ELECTED, leader, now);
    setTimer(TimerKind.DEADLINE, deadline);
    if (keepAliveOp == 0 && confirmOp == 0) {
      setTimer(TimerKind.RENEW, Math.max(now, leaseBaseSentAt + renewInterval()));
    }
    ensureWatch();
  }

  private void onCampaignLost(Input.CampaignLost l, long now) {
    if (l.op() != campaignOp || role != ElectorState.CANDIDATE) {
      return;
    }
    campaignOp = 0;
    succeeded(now);
    KeyRecord holder = l.holder();
    if (holder != null && leaseId != 0 && holder.leaseId() == leaseId) {
      // The key is bound to our own lease: an earlier attempt of this very transaction was
      // applied (a retried request). It is ours, created at that revision.
      won(holder.createRevision(), now);
      return;
    }
    moveTo(ElectorState.FOLLOWER);
    if (!config.standbyLease() || now >= deadline) {
      abandonLease();
    }
    observe(holder, l.revision(), now);
    if (keyAbsent) {
      poll();
    } else {
      setTimer(TimerKind.POLL, now + config.pollIntervalNanos());
    }
  }

  private void onCampaignFailed(Input.CampaignFailed f, long now) {
    if (f.op() != campaignOp || role != ElectorState.CANDIDATE) {
      return;
    }
    campaignOp = 0;
    failed(now);
    // The transaction may have been applied; revoking the lease removes the key with it, so
    // no key is left bound to a lease nobody renews.
    abandonLease();
    moveTo(ElectorState.FOLLOWER);
    setTimer(TimerKind.POLL, now + backoff(failures));
  }

  // ---- master ----

  /**
   * renewInterval is how long after a confirmed renewal's send time the next one goes out:
   * TTL/6 for the MASTER, so that TTL × (1 − ρ) − margin − TTL/6 is left to ride out an etcd
   * leader election; TTL/3 for a standby lease, since followers may be many. It also sets the
   * MASTER's retry delay (see retryRenewal). PROTOCOL.md §4.4 states the rule, VERIFICATION.md §3
   * the measurements behind it.
   */
  private long renewInterval() {
    long ttl = grantedTtlSeconds * NANOS_PER_SECOND;
    return role == ElectorState.MASTER ? ttl / 6 : ttl / 3;
  }

  private void renewNow(long now) {
    if (keepAliveOp != 0 || confirmOp != 0 || leaseId == 0) {
      return;
    }
    keepAliveOp = id();
    keepAliveSentAt = now;
    out.add(new Command.KeepAlive(keepAliveOp, leaseId));
  }

  private void retryRenewal(long now) {
    renewFailures++;
    if (role != ElectorState.MASTER) {
      // A standby lease is only worth keeping; it does not deserve fast retries.
      setTimer(TimerKind.RENEW, now + backoff(renewFailures));
      return;
    }
    // Retries stay fast while the deadline approaches, but never spin.
    long delay = Math.min(config.backoffInitialNanos(), renewInterval() / 4);
    setTimer(TimerKind.RENEW, now + Math.max(delay, 1_000_000L));
  }

  /** leaseGone handles etcd saying the held lease no longer exists. */
  private void leaseGone(long now) {
    if (role == ElectorState.MASTER) {
      loseLeadership(Cause.LEASE_REVOKED, null, now);
    } else if (role == ElectorState.CANDIDATE) {
      // The CAS in flight can no longer make us MASTER; its result finds no deadline left.
      deadline = Long.MIN_VALUE;
    } else {
      dropLease();
    }
  }

  private void onKeepAliveAcked(Input.KeepAliveAcked a, long now) {
    if (a.op() != keepAliveOp || leaseId == 0) {
      return;
    }
    keepAliveOp = 0;
    if (a.ttlSeconds() <= 0) {
      leaseGone(now);
      return;
    }
    succeeded(now);
    // The read must be sent after the ack arrived; only then does a matching raft term show
    // that the leader which applied the renewal still led when the read was served.
    confirmOp = id();
    confirmSentAt = keepAliveSentAt;
    confirmTtlSeconds = a.ttlSeconds();
    confirmTerm = a.raftTerm();
    out.add(new Command.ConfirmRead(confirmOp));
  }

  private void onKeepAliveFailed(Input.KeepAliveFailed f, long now) {
    if (f.op() != keepAliveOp || leaseId == 0) {
      return;
    }
    keepAliveOp = 0;
    if (f.leaseNotFound()) {
      leaseGone(now);
      return;
    }
    failed(now);
    retryRenewal(now);
  }

  private void onConfirmRead(Input.ConfirmRead r, long now) {
    if (r.op() != confirmOp || leaseId == 0) {
      return;
    }
    confirmOp = 0;
    succeeded(now);
    KeyRecord key = r.key();
    // A read served before our key was created (a standby renewal's read still in flight when
    // the CAS won) says nothing about that key; it still confirms the renewal below.
    if (role == ElectorState.MASTER && r.revision() >= token) {
      knownRevision = Math.max(knownRevision, r.revision());
      if (key == null) {
        keyGone(now);
        return;
      }
      if (key.leaseId() != leaseId || key.createRevision() != token) {
        loseLeadership(Cause.KEY_TAKEN, info(key), now);
        return;
      }
    }
    if (r.raftTerm() != confirmTerm) {
      // The ack came from another term: a deposed etcd leader may have acked without
      // renewing. Renew again at once, now against the current leader.
      retryRenewal(now);
      return;
    }
    renewFailures = 0;
    long d = config.deadline(confirmSentAt, confirmTtlSeconds);
    if (d > deadline) {
      deadline = d;
      leaseBaseSentAt = confirmSentAt;
      setTimer(TimerKind.DEADLINE, deadline);
    }
    setTimer(TimerKind.RENEW, Math.max(now, confirmSentAt + renewInterval()));
    if (role == ElectorState.FOLLOWER && !lossPending) {
      // A standby renewal's read is as good as a poll.
      observe(key, r.revision(), now);
      if (keyAbsent && pollOp == 0) {
        campaignOrWait(now);
      }
    }
  }

  private void onConfirmFailed(Input.ConfirmFailed f, long now) {
    if (f.op() != confirmOp || leaseId == 0) {
      return;
    }
    confirmOp = 0;
    failed(now);
    retryRenewal(now);
  }

  /**
   * keyGone steps down at once when the MASTER learns its key was deleted, then asks whether
   * its lease went too, to tell an outside revocation from a deletion of the key alone.
   */
  private void keyGone(long now) {
    moveTo(ElectorState.FOLLOWER);
    lossPending = true;
    probeLeaseId = leaseId;
    abandonedLeaseId = leaseId;
    dropLease();
    leader = null;
    keyAbsent = true;
    probeOp = id();
    out.add(new Command.ProbeLease(probeOp, probeLeaseId));
    setTimer(TimerKind.PROBE, now + config.probeTimeoutNanos());
  }

  private void onLeaseProbed(Input.LeaseProbed p, long now) {
    if (p.op() != probeOp || !lossPending) {
      return;
    }
    finishLoss(p.known() && !p.alive() ? Cause.LEASE_REVOKED : Cause.KEY_DELETED, now);
  }

  private void finishLoss(Cause cause, long now) {
    probeOp = 0;
    lossPending = false;
    cancelTimer(TimerKind.PROBE);
    if (cause != Cause.LEASE_REVOKED) {
      out.add(new Command.Revoke(probeLeaseId));
    }
    probeLeaseId = 0;
    publish(ElectorState.MASTER, ElectorState.FOLLOWER, cause, leader, now);
    poll();
  }

  /**
   * loseLeadership ends the term: the role changes first, so {@code isLeader()} is false
   * before any listener hears of it.
   */
  private void loseLeadership(Cause cause, LeaderInfo newLeader, long now) {
    moveTo(ElectorState.FOLLOWER);
    cancelTimer(TimerKind.RENEW);
    cancelTimer(TimerKind.DEADLINE);
    keepAliveOp = 0;
    confirmOp = 0;
    if (cause != Cause.LEASE_REVOKED) {
      out.add(new Command.Revoke(leaseId));
    }
    abandonedLeaseId = leaseId;
    dropLease();
    leader = newLeader;
    keyAbsent = false;
    publish(ElectorState.MASTER, ElectorState.FOLLOWER, cause, newLeader, now);
    poll();
  }

  /**
   * abandonLease revokes the held lease and forgets it. Until the revocation is applied a read
   * may still show the key bound to it (a CAS of ours applied after all); such a key is no
   * leader to report, just one about to be deleted.
   */
  private void abandonLease() {
    out.add(new Command.Revoke(leaseId));
    abandonedLeaseId = leaseId;
    dropLease();
  }

  /** dropLease forgets the held lease (the caller revokes it if needed) and its timers. */
  private void dropLease() {
    leaseId = 0;
    grantedTtlSeconds = 0;
    token = 0;
    deadline = Long.MIN_VALUE;
    keepAliveOp = 0;
    confirmOp = 0;
    cancelTimer(TimerKind.RENEW);
    cancelTimer(TimerKind.DEADLINE);
  }

  // ---- watch ----

  private void ensureWatch() {
    if (watchId == 0 && knownRevision > 0) {
      watchId = id();
      out.add(new Command.Watch(watchId, knownRevision + 1));
    }
  }

  private void onWatchPut(Input.WatchPut p, long now) {
    if (p.watchId() != watchId) {
      return;
    }
    watchFailures = 0;
    KeyRecord key = p.key();
    if (role == ElectorState.MASTER) {
      knownRevision = Math.max(knownRevision, p.revision());
      if (p.revision() > token && (key.leaseId() != leaseId || key.createRevision() != token)) {
        loseLeadership(Cause.KEY_TAKEN, info(key), now);
      }
      return;
    }
    observe(key, p.revision(), now);
    maybeAcquireStandby(now);
  }

  private void onWatchDelete(Input.WatchDelete d, long now) {
    if (d.watchId() != watchId) {
      return;
    }
    watchFailures = 0;
    if (role == ElectorState.MASTER) {
      knownRevision = Math.max(knownRevision, d.revision());
      if (d.revision() > token) {
        keyGone(now);
      }
      return;
    }
    boolean fresh = d.revision() >= knownRevision;
    observe(null, d.revision(), now);
    if (fresh && role == ElectorState.FOLLOWER && !lossPending && keyAbsent) {
      cancelTimer(TimerKind.POLL);
      if (pollOp == 0) {
        campaignOrWait(now);
      }
    }
  }

  private void onWatchFailed(Input.WatchFailed f, long now) {
    if (f.watchId() != watchId) {
      return;
    }
    watchId = 0;
    watchFailures++;
    setTimer(TimerKind.REWATCH, now + backoff(watchFailures));
  }

  // ---- timers ----

  private void onTimer(Input.TimerFired t, long now) {
    Long armed = timerSeq.get(t.kind());
    if (armed == null || armed != t.seq()) {
      return;
    }
    timerSeq.remove(t.kind());
    switch (t.kind()) {
      case POLL -> {
        if (role == ElectorState.FOLLOWER && !lossPending) {
          poll();
        }
      }
      case RENEW -> renewNow(now);
      case DEADLINE -> {
        if (now < deadline) {
          setTimer(TimerKind.DEADLINE, deadline);
        } else if (role == ElectorState.MASTER) {
          loseLeadership(Cause.LEASE_EXPIRED_LOCALLY, null, now);
        } else if (role == ElectorState.FOLLOWER && leaseId != 0) {
          // A standby lease we can no longer vouch for: let it go, take a fresh one later.
          abandonLease();
        }
        // A CANDIDATE's transaction result checks the deadline itself.
      }
      case REWATCH -> {
        // A follower re-reads first: the watch may have missed changes, and its start
        // revision may have been compacted.
        if (role == ElectorState.FOLLOWER) {
          poll();
        } else {
          ensureWatch();
        }
      }
      case PROBE -> {
        if (lossPending) {
          finishLoss(Cause.KEY_DELETED, now);
        }
      }
    }
  }

  private void setTimer(TimerKind kind, long at) {
    long seq = id();
    timerSeq.put(kind, seq);
    out.add(new Command.SetTimer(kind, seq, at));
  }

  private void cancelTimer(TimerKind kind) {
    if (timerSeq.remove(kind) != null) {
      out.add(new Command.CancelTimer(kind));
    }
  }

  // ---- helpers ----

  private void succeeded(long now) {
    failures = 0;
    // While a MASTER's loss is pending its listeners still think it leads: an event from
    // FOLLOWER must not come before the loss. The next success or failure after it reports.
    if (unavailable && !lossPending) {
      unavailable = false;
      publish(role, role, Cause.ETCD_RECOVERED, leader, now);
    }
  }

  private void failed(long now) {
    failures++;
    if (!unavailable && !lossPending) {
      unavailable = true;
      publish(role, role, Cause.ETCD_UNAVAILABLE, leader, now);
    }
  }

  /** backoff is the capped exponential delay after n failures, with equal jitter. */
  private long backoff(long n) {
    long base = config.backoffInitialNanos();
    long cap = config.backoffMaxNanos();
    long d = base;
    for (long i = 1; i < n && d < cap; i++) {
      d = Math.min(cap, d * 2);
    }
    d = Math.min(cap, d);
    return d / 2 + (long) (random.nextDouble() * (d / 2));
  }

  private void moveTo(ElectorState to) {
    Transitions.check(role, to);
    role = to;
  }

  private void publish(ElectorState from, ElectorState to, Cause cause, LeaderInfo who, long now) {
    out.add(new Command.Publish(from, to, cause, who, now));
  }

  private static LeaderInfo info(KeyRecord key) {
    return new LeaderInfo(key.holderId(), key.createRevision(), key.leaseId());
  }

  private long id() {
    return nextId++;
  }
}
