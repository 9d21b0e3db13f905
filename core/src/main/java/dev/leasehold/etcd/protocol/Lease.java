package dev.leasehold.etcd.protocol;

import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;

/**
 * Lease is the one etcd lease an instance holds at a time (a follower's standby lease, a
 * candidate's, or the MASTER's): its grant, its renewal and the local deadline that renewal
 * earns (PROTOCOL.md §4).
 *
 * <ul>
 *   <li><b>Grant.</b> Either a standby grant or a grant for a campaign; a campaign adopts a
 *       standby grant already in flight. The deadline starts from the grant's send time.
 *   <li><b>Renewal.</b> A keep-alive; after its ack, a confirm read (sent only then); the
 *       renewal counts only if the read carries the ack's raft term. Then the deadline is
 *       {@code send time of the keep-alive + TTL × (1 − maxDriftRate) − margin}, and only ever
 *       moves later.
 *   <li><b>Timers.</b> RENEW from the last confirmed send time: while it serves a MASTER
 *       ({@link #lead}), as late as leaves 2 s of the window (TTL/6 to TTL/2); every 3·TTL/5
 *       (at the default margin) as a standby or candidate lease; DEADLINE at the deadline.
 *   <li><b>Retries.</b> A MASTER's renewal is retried after {@code min(backoffInitial, interval/4)}
 *       (at least 1 ms), a standby lease's after the error backoff; a failed standby grant is
 *       not tried again before its backoff has passed.
 * </ul>
 *
 * <p>It knows nothing of election keys: the key record a confirm read returns goes to its
 * {@link Holder} to judge, and so does what a lease's end means (etcd saying it is gone, the
 * deadline passing).
 *
 * <p>Not thread-safe: owned by one {@link ElectionMachine}.
 */
final class Lease {
  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  /** Holder is what rides on the lease; the lease tells it what the store said. */
  interface Holder {
    /** answered is called when the store answered a lease call. */
    void answered(long now);

    /** failed is called when a lease call failed or timed out. */
    void failed(long now);

    /** gone is called when etcd says the lease no longer exists; the lease is still held. */
    void gone(long now);

    /**
     * keyRead hands over the key as the confirm read saw it ({@code key} null when absent),
     * before the raft term is checked; false when the holder gave the lease up over it, which
     * ends this renewal.
     */
    boolean keyRead(KeyRecord key, long revision, long now);

    /** renewed is called after a renewal was confirmed, with the confirm read's view of the key. */
    void renewed(KeyRecord key, long revision, long now);

    /** expired is called when the DEADLINE timer finds the deadline passed. */
    void expired(long now);

    /** rankOf is the lease whose place in the queue the confirming read should count, or 0. */
    default long rankOf() {
      return 0;
    }

    /** ranked hands over that count, from a confirming read served after the ack. */
    default void ranked(long ahead, long now) {}
  }

  private final ProtocolConfig config;
  private final Effects fx;

  // The grant in flight (at most one), and when a failed standby grant may be tried again.
  private long grantOp;
  private boolean grantForCampaign;
  private long grantSentAt;
  private long standbyRetryAt = Long.MIN_VALUE;

  // The held lease.
  private long id;
  private long ttlSeconds;
  private long deadline = Long.MIN_VALUE;
  private long baseSentAt;
  private boolean leading;

  // The renewal in flight: a keep-alive, then its confirm read.
  private long keepAliveOp;
  private long keepAliveSentAt;
  private long confirmOp;
  private long confirmSentAt;
  private long confirmTtlSeconds;
  private long confirmTerm;
  private long failures;

  Lease(ProtocolConfig config, Effects fx) {
    this.config = config;
    this.fx = fx;
  }

  /** isHeld is true from a grant's arrival until the lease is released or forgotten. */
  boolean isHeld() {
    return id != 0;
  }

  /** id is the held lease's id, or 0. */
  long id() {
    return id;
  }

  /** ttlSeconds is the TTL etcd granted the held lease, or 0. */
  long ttlSeconds() {
    return ttlSeconds;
  }

  /** deadline is the local time until which etcd surely keeps the lease; Long.MIN_VALUE when none. */
  long deadline() {
    return deadline;
  }

  /**
   * renewalSentAt is the send time of what the deadline counts from (the grant, or the last
   * confirmed renewal); Long.MIN_VALUE when no lease is held.
   */
  long renewalSentAt() {
    return deadline == Long.MIN_VALUE ? Long.MIN_VALUE : baseSentAt;
  }

  // ---- grant ----

  /** mayGrantStandby tells whether a standby grant may go out now: no lease, no grant, no retry wait. */
  boolean mayGrantStandby(long now) {
    return id == 0 && grantOp == 0 && now >= standbyRetryAt;
  }

  /** grantStandby asks for a lease a follower keeps ready while someone else leads. */
  void grantStandby(long now) {
    grant(false, now);
  }

  /** grantForCampaign asks for a lease to campaign with, or adopts the standby grant in flight. */
  void grantForCampaign(long now) {
    grantForCampaign(now, 0);
  }

  /**
   * grantForCampaign asks for a lease to campaign with, whose answer may take {@code waitNanos}
   * (0: the RPC timeout), or adopts the standby grant in flight.
   */
  void grantForCampaign(long now, long waitNanos) {
    if (grantOp != 0 && !grantForCampaign) {
      grantForCampaign = true;
      return;
    }
    grant(true, now, waitNanos);
  }

  private void grant(boolean forCampaign, long now) {
    grant(forCampaign, now, 0);
  }

  private void grant(boolean forCampaign, long now, long waitNanos) {
    grantOp = fx.id();
    grantForCampaign = forCampaign;
    grantSentAt = now;
    fx.add(new EtcdCommand.GrantLease(grantOp, config.requestedTtlSeconds(), waitNanos));
  }

  /** awaitsGrant tells whether {@code op} is the grant in flight, of the given purpose. */
  boolean awaitsGrant(long op, boolean forCampaign) {
    return op != 0 && op == grantOp && grantForCampaign == forCampaign;
  }

  /**
   * hold takes the lease of the awaited grant: etcd cannot expire it before the grant's send
   * time plus the granted TTL, since the grant was applied after it was sent.
   */
  void hold(EtcdInput.LeaseGranted g, long now) {
    grantOp = 0;
    id = g.leaseId();
    ttlSeconds = g.ttlSeconds();
    baseSentAt = grantSentAt;
    deadline = config.deadline(grantSentAt, ttlSeconds);
    fx.setTimer(TimerKind.DEADLINE, deadline);
    fx.setTimer(TimerKind.RENEW, Math.max(now, baseSentAt + renewInterval()));
  }

  /** standbyGrantFailed ends the awaited standby grant; the next waits until {@code retryAt}. */
  void standbyGrantFailed(long retryAt) {
    grantOp = 0;
    standbyRetryAt = retryAt;
  }

  /** campaignGrantFailed ends the awaited grant for a campaign. */
  void campaignGrantFailed() {
    grantOp = 0;
  }

  // ---- cadence ----

  /**
   * renewInterval is how long after a confirmed renewal's send time the next one goes out
   * (PROTOCOL.md §4.4 gives the measurements behind both):
   *
   * <ul>
   *   <li>The MASTER renews as late as leaves {@link ProtocolConfig#RIDE_THROUGH_NANOS} (2 s) of its window
   *       (TTL × (1 − ρ) − margin) to ride out an etcd leader election, between TTL/6 and
   *       TTL/2. A crashed MASTER's lease outlives it by TTL minus the time since its last
   *       renewal, so renewing later is failing over sooner; below TTL 3 s the window leaves
   *       less than 2 s, and TTL/6 keeps what slack there is.
   *   <li>A standby lease renews as late as leaves TTL/4 of its window for retries, between
   *       TTL/3 and 3·TTL/5 (3·TTL/5 at the default margin): its followers may be many, and each
   *       renewal, a keep-alive and a read, is also the follower's poll, so a follower costs
   *       etcd two messages per renewal, about 10/(3·TTL) a second.
   * </ul>
   *
   * It also sets the MASTER's retry delay (see retry).
   */
  private long renewInterval() {
    if (leading) {
      return config.masterRenewIntervalNanos(ttlSeconds);
    }
    long ttl = ttlSeconds * NANOS_PER_SECOND;
    long window = config.deadline(0, ttlSeconds);
    return Math.max(ttl / 3, Math.min(ttl * 3 / 5, window - ttl / 4));
  }

  /**
   * hasRenewalLeft tells whether TTL/6 of the deadline is left (the shortest MASTER renewal
   * interval): enough for a term on this lease to renew once before the deadline (a standby
   * lease that takes over, or adopts a key handed to it); the term renews at once when due.
   */
  boolean hasRenewalLeft(long now) {
    return deadline - now >= ttlSeconds * NANOS_PER_SECOND / 6;
  }

  /**
   * lead switches the lease to the MASTER's cadence, with a fresh retry count, and arms its
   * timers (RENEW only if no renewal is in flight: that one's result re-arms it).
   */
  void lead(long now) {
    leading = true;
    failures = 0;
    fx.setTimer(TimerKind.DEADLINE, deadline);
    if (keepAliveOp == 0 && confirmOp == 0) {
      fx.setTimer(TimerKind.RENEW, Math.max(now, baseSentAt + renewInterval()));
    }
  }

  /**
   * follow switches the lease of a MASTER that handed its key over back to the standby cadence,
   * and re-arms its timers (the step-down disarmed them).
   */
  void follow(long now) {
    leading = false;
    failures = 0;
    fx.setTimer(TimerKind.DEADLINE, deadline);
    fx.setTimer(TimerKind.RENEW, Math.max(now, baseSentAt + renewInterval()));
  }

  // ---- renewal ----

  /** renew sends a keep-alive unless one renewal is already in flight or no lease is held. */
  void renew(long now) {
    if (keepAliveOp != 0 || confirmOp != 0 || id == 0) {
      return;
    }
    keepAliveOp = fx.id();
    keepAliveSentAt = now;
    fx.add(new EtcdCommand.KeepAlive(keepAliveOp, id));
  }

  /** onDeadline handles the DEADLINE timer: re-armed if the deadline moved, else the holder's. */
  void onDeadline(long now, Holder holder) {
    if (now < deadline) {
      fx.setTimer(TimerKind.DEADLINE, deadline);
    } else {
      holder.expired(now);
    }
  }

  /** on handles the renewal's replies; other inputs are not the lease's and are ignored. */
  void on(Input in, long now, Holder holder) {
    if (in instanceof EtcdInput.KeepAliveAcked a) {
      acked(a, now, holder);
    } else if (in instanceof EtcdInput.KeepAliveFailed f) {
      if (f.op() != keepAliveOp || id == 0) {
        return;
      }
      keepAliveOp = 0;
      if (f.leaseNotFound()) {
        holder.gone(now);
        return;
      }
      holder.failed(now);
      retry(now);
    } else if (in instanceof EtcdInput.ConfirmRead r) {
      confirmed(r, now, holder);
    } else if (in instanceof EtcdInput.ConfirmFailed f) {
      if (f.op() != confirmOp || id == 0) {
        return;
      }
      confirmOp = 0;
      holder.failed(now);
      retry(now);
    }
  }

  private void acked(EtcdInput.KeepAliveAcked a, long now, Holder holder) {
    if (a.op() != keepAliveOp || id == 0) {
      return;
    }
    keepAliveOp = 0;
    if (a.ttlSeconds() <= 0) {
      holder.gone(now);
      return;
    }
    holder.answered(now);
    // The read must be sent after the ack arrived; only then does a matching raft term show
    // that the leader which applied the renewal still led when the read was served.
    confirmOp = fx.id();
    confirmSentAt = keepAliveSentAt;
    confirmTtlSeconds = a.ttlSeconds();
    confirmTerm = a.raftTerm();
    fx.add(new EtcdCommand.ConfirmRead(confirmOp, leading ? 0 : holder.rankOf()));
  }

  private void confirmed(EtcdInput.ConfirmRead r, long now, Holder holder) {
    if (r.op() != confirmOp || id == 0) {
      return;
    }
    confirmOp = 0;
    holder.answered(now);
    if (r.ahead() >= 0) {
      holder.ranked(r.ahead(), now);
    }
    if (!holder.keyRead(r.key(), r.revision(), now)) {
      return;
    }
    if (r.raftTerm() != confirmTerm) {
      // The ack came from another term: a deposed etcd leader may have acked without
      // renewing. Renew again soon, now against the current leader.
      retry(now);
      return;
    }
    failures = 0;
    long d = config.deadline(confirmSentAt, confirmTtlSeconds);
    if (d > deadline) {
      deadline = d;
      baseSentAt = confirmSentAt;
      fx.setTimer(TimerKind.DEADLINE, deadline);
    }
    fx.setTimer(TimerKind.RENEW, Math.max(now, confirmSentAt + renewInterval()));
    holder.renewed(r.key(), r.revision(), now);
  }

  private void retry(long now) {
    failures++;
    if (!leading) {
      // A standby lease is only worth keeping; it does not deserve fast retries.
      fx.setTimer(TimerKind.RENEW, now + fx.backoff(failures));
      return;
    }
    // Retries stay fast while the deadline approaches, but never spin.
    long delay = Math.min(config.backoffInitialNanos(), renewInterval() / 4);
    fx.setTimer(TimerKind.RENEW, now + Math.max(delay, 1_000_000L));
  }

  // ---- end ----

  /**
   * distrust drops the deadline of a lease etcd said is gone while a campaign rides on it: the
   * campaign's result then finds no time left. The lease stays held until that result.
   */
  void distrust() {
    deadline = Long.MIN_VALUE;
  }

  /** stopRenewing disarms RENEW and DEADLINE and drops the renewal in flight; the lease stays held. */
  void stopRenewing() {
    keepAliveOp = 0;
    confirmOp = 0;
    fx.cancelTimer(TimerKind.RENEW);
    fx.cancelTimer(TimerKind.DEADLINE);
  }

  /** release gives the lease back to etcd (its key goes with it) and forgets it. */
  void release() {
    fx.add(new Command.Release(id, ttlSeconds));
    forget();
  }

  /** forget drops the lease without telling etcd (the caller revokes it if needed). */
  void forget() {
    id = 0;
    ttlSeconds = 0;
    deadline = Long.MIN_VALUE;
    leading = false;
    stopRenewing();
  }
}
