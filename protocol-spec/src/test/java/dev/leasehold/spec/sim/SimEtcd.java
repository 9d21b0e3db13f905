package dev.leasehold.spec.sim;

import dev.leasehold.etcd.protocol.EtcdInput;
import dev.leasehold.Participant;
import java.util.List;
import dev.leasehold.runtime.Input;
import dev.leasehold.spec.sim.SimNetwork.Member;
import dev.leasehold.spec.sim.Stats.Stat;

/**
 * SimEtcd is the simulated etcd's request handling: each request as the member it reaches
 * (the majority's leader, or an isolated old leader) would answer it, as the input
 * {@code EtcdPort} would map that answer to. A null answer is none at all (the client times
 * out). Revoke answers TRUE (revoked), "not found", or FALSE (failed). Proposals (grant,
 * campaign, enlist, handover) reach no commit on an isolated old leader; a transaction whose
 * Then branch puts on a lease that is gone (or expired, awaiting the sweep) fails with "requested
 * lease not found", as etcd's does.
 *
 * <p>Not thread-safe: one simulation owns it.
 */
final class SimEtcd {
  private final Engine engine;
  private final SimStore store;
  private final Mutation mutation;

  SimEtcd(Engine engine, SimStore store, Mutation mutation) {
    this.engine = engine;
    this.store = store;
    this.mutation = mutation;
  }

  /** noLeader: a member without a leader fails the request at once or lets it time out. */
  private Object noLeader(Object failure) {
    return engine.rnd.nextBoolean() ? failure : null;
  }

  /** poll reads K and, with {@code participants}, the queue: one range, at one revision. */
  Object poll(Member mem, long op, boolean participants) {
    if (mem == Member.OLD_LEADER) {
      if (mutation == Mutation.STALE_READS_ON_ISOLATED_LEADER) {
        engine.stats.inc(Stat.STALE_READS_SERVED);
        return new EtcdInput.PollResult(op, store.isoKey, store.isoRevision, participants ? store.isoQueue : null);
      }
      return null; // a linearizable read needs a quorum: it times out
    }
    if (!store.hasLeader) {
      return noLeader(new EtcdInput.PollFailed(op, "etcdserver: no leader"));
    }
    return new EtcdInput.PollResult(op, store.key, store.revision, participants ? store.queued() : null);
  }

  /** rank counts the queue's keys named before this lease's (all for 0), as etcd's count-only range does. */
  Object rank(Member mem, Proc p, long op, long leaseId) {
    if (mem == Member.OLD_LEADER) {
      return null; // a linearizable read needs a quorum: it times out
    }
    if (!store.hasLeader) {
      return noLeader(new EtcdInput.RankFailed(op, "etcdserver: no leader"));
    }
    int priority = p.ec.priority();
    String end = leaseId == 0 ? Participant.rankEnd(KEY, priority) : Participant.keyOf(KEY, leaseId, priority);
    long ahead = store.queued().stream().filter(q -> nameOf(q).compareTo(end) < 0).count();
    return new EtcdInput.Ranked(op, ahead, store.revision);
  }

  Object confirm(Member mem, Proc p, long op, long rankOf) {
    if (mem == Member.OLD_LEADER) {
      if (mutation == Mutation.STALE_READS_ON_ISOLATED_LEADER) {
        engine.stats.inc(Stat.STALE_READS_SERVED);
        return new EtcdInput.ConfirmRead(op, store.isoKey, store.isoRevision, store.isoTerm,
            rankOf == 0 ? -1 : ahead(store.isoQueue, rankOf, p.ec.priority()));
      }
      return null;
    }
    if (!store.hasLeader) {
      return noLeader(new EtcdInput.ConfirmFailed(op, "etcdserver: no leader"));
    }
    return new EtcdInput.ConfirmRead(op, store.key, store.revision, store.term,
        rankOf == 0 ? -1 : ahead(store.queued(), rankOf, p.ec.priority()));
  }

  /** KEY is the simulated election's key (Scenario's), which the participant keys' names extend. */
  static final String KEY = "/leasehold/sim";

  // The participant keys named before this lease's, as etcd's count-only range does (by name).
  private static long ahead(List<Participant> queue, long leaseId, int priority) {
    String own = Participant.keyOf(KEY, leaseId, priority);
    return queue.stream().filter(q -> nameOf(q).compareTo(own) < 0).count();
  }

  private static String nameOf(Participant q) {
    return Participant.keyOf(KEY, q.leaseId(), q.priority());
  }

  Object grant(Member mem, Proc p, long op, long ttlSeconds) {
    if (mem == Member.OLD_LEADER) {
      return null; // a proposal that cannot commit
    }
    if (!store.hasLeader) {
      return noLeader(new EtcdInput.GrantFailed(op, "etcdserver: no leader"));
    }
    SimStore.Lease l = store.grant(ttlSeconds, p, engine.now);
    engine.note("store: grant lease " + Long.toHexString(l.id) + " ttl=" + l.ttlSeconds + "s to " + p);
    return new EtcdInput.LeaseGranted(op, l.id, l.ttlSeconds);
  }

  Object campaign(Member mem, Proc p, long op, long leaseId, boolean enlist) {
    if (mem == Member.OLD_LEADER) {
      return null;
    }
    if (!store.hasLeader) {
      return noLeader(new EtcdInput.CampaignFailed(op, "etcdserver: no leader"));
    }
    SimStore.TxnOutcome o = store.campaign(p.ec.candidateId(), leaseId, engine.now);
    if (o.won()) {
      p.appliedCampaigns.add(op);
      engine.note("store: " + p + " put K lease=" + Long.toHexString(leaseId) + " rev=" + o.revision());
      return new EtcdInput.CampaignWon(op, o.revision());
    }
    if (o.leaseNotFound()) {
      return new EtcdInput.CampaignFailed(op, "etcdserver: requested lease not found");
    }
    if (enlist) {
      // The Else branch also puts P(lease), in the same revision; its put fails the whole
      // transaction when the lease is gone.
      long rev = store.enlist(p.ec.candidateId(), leaseId, p.ec.priority(), engine.now);
      if (rev < 0) {
        return new EtcdInput.CampaignFailed(op, "etcdserver: requested lease not found");
      }
      engine.stats.inc(Stat.ENLISTS);
      return new EtcdInput.CampaignLost(op, o.holder(), rev, true);
    }
    return new EtcdInput.CampaignLost(op, o.holder(), o.revision());
  }

  Object enlist(Member mem, Proc p, long op, long leaseId) {
    if (mem == Member.OLD_LEADER) {
      return null; // a proposal that cannot commit
    }
    if (!store.hasLeader) {
      return noLeader(new EtcdInput.EnlistFailed(op, "etcdserver: no leader"));
    }
    long rev = store.enlist(p.ec.candidateId(), leaseId, p.ec.priority(), engine.now);
    if (rev < 0) {
      return new EtcdInput.EnlistFailed(op, "etcdserver: requested lease not found");
    }
    engine.stats.inc(Stat.ENLISTS);
    return new EtcdInput.Enlisted(op, rev);
  }

  Object handover(Member mem, Proc p, long op, long token, long leaseId, Participant successor) {
    if (mem == Member.OLD_LEADER) {
      return null;
    }
    if (!store.hasLeader) {
      return noLeader(new EtcdInput.HandoverFailed(op, "etcdserver: no leader"));
    }
    SimStore.HandoverOutcome o = store.handover(p.ec.candidateId(), leaseId, p.ec.priority(), token, successor,
        engine.now);
    if (o.committed()) {
      engine.stats.inc(Stat.HANDOVERS);
      p.appliedHandovers.add(op);
      engine.note("store: " + p + " handed K over to " + successor + " rev=" + o.revision());
      return new EtcdInput.HandedOver(op, o.revision());
    }
    if (o.leaseNotFound()) {
      return new EtcdInput.HandoverFailed(op, "etcdserver: requested lease not found");
    }
    engine.stats.inc(Stat.HANDOVERS_REFUSED);
    return new EtcdInput.HandoverRefused(op, o.key(), o.revision());
  }

  Object keepAlive(Member mem, long op, long lease) {
    if (mem == Member.OLD_LEADER) {
      Long ttl = store.isoLeaseTtl.get(lease);
      if (ttl != null) {
        // The deposed leader acks from its own lessor; the majority's lease is not renewed.
        engine.stats.inc(Stat.ISOLATED_LEADER_ACKS);
        return new EtcdInput.KeepAliveAcked(op, ttl, store.isoTerm);
      }
      return leaseNotFound(op, store.isoTerm);
    }
    if (!store.hasLeader) {
      return noLeader(new EtcdInput.KeepAliveFailed(op, false, "etcdserver: no leader"));
    }
    long ttl = store.keepAlive(lease, engine.now);
    return ttl > 0 ? new EtcdInput.KeepAliveAcked(op, ttl, store.term) : leaseNotFound(op, store.term);
  }

  /** leaseNotFound is a keep-alive reply with TTL 0, or EtcdPort's mapping of NOT_FOUND. */
  private Input leaseNotFound(long op, long term) {
    return engine.rnd.nextBoolean()
        ? new EtcdInput.KeepAliveAcked(op, 0, term)
        : new EtcdInput.KeepAliveFailed(op, true, "etcdserver: requested lease not found");
  }

  Object probe(Member mem, long op, long lease) {
    if (mem == Member.OLD_LEADER) {
      return new EtcdInput.LeaseProbed(op, true, store.isoLeaseTtl.containsKey(lease));
    }
    if (!store.hasLeader) {
      return noLeader(new EtcdInput.LeaseProbed(op, false, false));
    }
    return new EtcdInput.LeaseProbed(op, true, store.timeToLive(lease, engine.now) > 0);
  }

  Object revoke(Member mem, Proc p, long lease) {
    if (mem == Member.OLD_LEADER) {
      return null;
    }
    if (!store.hasLeader) {
      return noLeader(Boolean.FALSE);
    }
    return store.revoke(lease, "revoked by " + p) ? Boolean.TRUE : "not found";
  }
}
