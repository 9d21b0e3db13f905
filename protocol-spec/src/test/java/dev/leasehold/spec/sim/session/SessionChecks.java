package dev.leasehold.spec.sim.session;

import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.etcd.protocol.KeyRecord;
import dev.leasehold.runtime.ElectorRuntime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * SessionChecks are the session simulation's invariants (PROTOCOL.md §11), checked after every
 * simulation event; the first violation ends the run.
 *
 * <p>Not thread-safe: the simulation's one thread calls it.
 */
final class SessionChecks {
  /** Inv names the checked properties. */
  enum Inv {
    /** Per key, at most one live process's election says {@code isLeader()}. */
    NO_OVERLAP,
    /** A leader's key is bound, in etcd, to the lease of its Leadership, with its token as the key's mod revision. */
    MASTER_OWNS_KEY,
    /**
     * Per key, no token is elected twice, and a leader's token is never below that of a leader
     * seen earlier (after each event). Not by the events' order: a term a move ended at once may
     * have its ELECTED published after its successor's, by a slower dispatcher.
     */
    FENCING_MONOTONIC,
    /** Once faults are over, no key goes without a leader for longer than the scenario's bound. */
    LIVENESS,
    /**
     * Spreading, from the scenario's skewFrom until the close, the live processes' numbers of
     * leaderships differ by at most one (equal weights).
     */
    BOUNDED_SKEW,
    /** Every close of a live process completes. */
    CLOSE_COMPLETES,
    /** Some time after the close, etcd holds no lease and no key. */
    NO_LEASE_LEFT_BEHIND,
    /** Nothing throws, and the runtime logs no ERROR. */
    NO_EXCEPTION
  }

  /** Violation is a failed check. */
  static final class Violation extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final Inv inv;

    Violation(Inv inv, long at, String message) {
      super(inv + " at " + SessionSim.fmt(at) + ": " + message, null, false, false);
      this.inv = inv;
    }
  }

  private final SessionSim sim;
  private final Map<String, java.util.Set<Long>> elected = new HashMap<>();
  private final Map<String, Long> maxLeading = new HashMap<>();
  private final Map<String, Long> noLeaderSince = new HashMap<>();
  private Violation pending;
  long longestGap;

  SessionChecks(SessionSim sim) {
    this.sim = sim;
  }

  void fail(Inv inv, String message) {
    if (pending == null) {
      pending = new Violation(inv, sim.now, message);
    }
  }

  void throwPending() {
    if (pending != null) {
      throw pending;
    }
  }

  /** published hears every event of every election (on its dispatcher). */
  void published(SessionProc p, String key, LeadershipEvent e) {
    sim.note(p + "@" + key + " " + e.from() + "->" + e.to() + " " + e.cause()
        + e.fencingToken().stream().mapToObj(t -> " token=" + t).findFirst().orElse(""));
    sim.count("event " + e.cause());
    if (e.isElected()) {
      long token = e.fencingToken().orElseThrow();
      if (!elected.computeIfAbsent(key, k -> new java.util.HashSet<>()).add(token)) {
        fail(Inv.FENCING_MONOTONIC, p + " elected on " + key + " with token " + token + " a second time");
      }
    }
  }

  /** check runs after every event. */
  void check(List<SessionProc> procs, List<String> keys) {
    for (String key : keys) {
      SessionProc leader = null;
      for (SessionProc p : procs) {
        if (p.crashed) {
          continue;
        }
        ElectorRuntime r = p.elections.get(key);
        if (r == null || !r.isLeader()) {
          continue;
        }
        if (leader != null) {
          fail(Inv.NO_OVERLAP, leader + " and " + p + " both lead " + key);
        }
        leader = p;
        ownsKey(p, key, r);
        r.leadership().ifPresent(l -> {
          long max = maxLeading.getOrDefault(key, 0L);
          if (l.fencingToken() < max) {
            fail(Inv.FENCING_MONOTONIC, p + " leads " + key + " with token " + l.fencingToken()
                + " after a leader with token " + max);
          }
          maxLeading.put(key, Math.max(max, l.fencingToken()));
        });
      }
      liveness(key, leader != null);
    }
    if (sim.sc.spread && sim.now >= sim.sc.skewFrom && sim.now < sim.sc.closeAt) {
      skew(procs, keys);
    }
    throwPending();
  }

  private void skew(List<SessionProc> procs, List<String> keys) {
    Map<String, Integer> count = new java.util.TreeMap<>();
    for (SessionProc p : procs) {
      if (!p.crashed && !p.closeRequested) {
        count.put(p.name, (int) keys.stream().filter(k -> p.elections.get(k) != null && p.elections.get(k).isLeader())
            .count());
      }
    }
    int max = count.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    int min = count.values().stream().mapToInt(Integer::intValue).min().orElse(0);
    if (max - min > 1) {
      fail(Inv.BOUNDED_SKEW, "leaderships " + count + " differ by " + (max - min) + " at "
          + SessionSim.fmt(sim.now - sim.sc.quietAt) + " after quiet");
    }
  }

  private void ownsKey(SessionProc p, String key, ElectorRuntime r) {
    Optional<Leadership> l = r.leadership();
    if (l.isEmpty() || !l.get().isValid()) {
      return;
    }
    KeyRecord k = sim.etcd.keys.get(key);
    if (k == null || k.leaseId() != l.get().leaseId() || k.modRevision() != l.get().fencingToken()) {
      fail(Inv.MASTER_OWNS_KEY, p + " leads " + key + " with lease " + Long.toHexString(l.get().leaseId())
          + " token " + l.get().fencingToken() + " but etcd holds " + k);
    }
  }

  private void liveness(String key, boolean led) {
    if (!sim.quiet || sim.now >= sim.sc.closeAt) {
      return;
    }
    if (led) {
      Long since = noLeaderSince.remove(key);
      if (since != null) {
        longestGap = Math.max(longestGap, sim.now - since);
      }
      return;
    }
    long since = noLeaderSince.computeIfAbsent(key, k -> sim.now);
    if (sim.now - since > sim.sc.livenessBound) {
      fail(Inv.LIVENESS, key + " has had no leader since " + SessionSim.fmt(since) + " (bound "
          + sim.sc.livenessBound / 1_000_000 + " ms)");
    }
  }

  /** closesDone runs well after the close: every live process's close completed. */
  void closesDone(List<SessionProc> procs) {
    for (SessionProc p : procs) {
      if (!p.crashed && p.closedAt < 0) {
        fail(Inv.CLOSE_COMPLETES, p + "'s close did not complete");
      }
    }
  }

  /** nothingLeft runs at the end: no lease and no key remain in etcd. */
  void nothingLeft() {
    if (!sim.etcd.leases.isEmpty() || !sim.etcd.keys.isEmpty()) {
      fail(Inv.NO_LEASE_LEFT_BEHIND, "etcd still holds leases "
          + sim.etcd.leases.keySet().stream().map(Long::toHexString).toList() + " and keys " + sim.etcd.keys);
    }
  }
}
