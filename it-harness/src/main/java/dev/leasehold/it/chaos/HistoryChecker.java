package dev.leasehold.it.chaos;

import dev.leasehold.it.chaos.History.Attempt;
import dev.leasehold.it.chaos.History.FaultWindow;
import dev.leasehold.it.chaos.History.Freeze;
import dev.leasehold.it.chaos.History.Incarnation;
import dev.leasehold.it.chaos.History.Interval;
import dev.leasehold.it.chaos.History.Outcome;
import dev.leasehold.it.chaos.History.StoreWrite;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * HistoryChecker checks a chaos run's {@link History} against Leasehold's promises (issue 4):
 *
 * <ol>
 *   <li><b>overlap</b>: no two leadership intervals of different processes overlap, except when
 *       one process was frozen during its interval before the overlap ended (it could not step
 *       down while stopped); those are counted apart and covered by check 2; so are overlaps with
 *       a process whose clock ran beyond the elector's maxDriftRate ({@link History#clocks()}),
 *       outside what the elector promises;
 *   <li><b>stale</b>: no guarded write with a stale token was accepted: on the client side, no
 *       write that was sent after a newer term's ELECTED succeeded; on the store side, every
 *       applied write carried the token of the term the store had alive at its revision (etcd:
 *       the election key's create revision; MariaDB: the lease row's epoch);
 *   <li><b>counter</b>: applied writes' tokens never decrease; the counter went 1, 2, 3, ...
 *       with one applied write per value and ends at the number of applied writes; every write
 *       a candidate saw succeed is in the store once; every applied write belongs to an attempt
 *       that was reported OK or ERROR (unknown), never FENCED or CONFLICT;
 *   <li><b>liveness</b>: after each fault heals, a MASTER (not frozen) exists within
 *       {@link History.Params#livenessBoundNanos()};
 *   <li><b>spurious</b> (only when TTL ≥ {@link History.Params#spuriousMinTtlNanos()}): a
 *       term ends by a loss cause only if its holder was the target of a candidate fault
 *       (process, links or session) during the last TTL before the loss, or the store was
 *       unavailable then.
 * </ol>
 *
 * <p>Measured CPU stalls ({@link History#stalls()}) are the one environmental excuse: a process
 * that did not run for longer than the margin is a paused process (overlap is then treated as
 * for a freeze, and check 2 covers it), and a loss or a missed liveness bound while the loser,
 * the whole machine (the harness) or the store (on MariaDB: a commit that took that long,
 * measured by {@link CommitProbe}) stalled for {@link History.Params#stallNanos()} or more is
 * counted in its own column, not as a violation. A store stall never excuses an overlap. Safety checks 2 and 3 have no excuse at all.
 *
 * <p>It also measures, per fault, the longest time without a (non-frozen) MASTER from the
 * fault's injection to the next one. Stateless; thread-safe.
 */
public final class HistoryChecker {
    static final String WARMUP = "(no fault)";

  private HistoryChecker() {}

  /** Result is the violations found and the per-fault numbers. */
  public record Result(List<ChaosViolation> violations, Map<String, FaultStats> stats, Totals totals) {
    /** ok is true when nothing was violated. */
    public boolean ok() {
      return violations.isEmpty();
    }

    /** table is the summary table, one row per fault, as Markdown. */
    public String table() {
      StringBuilder b = new StringBuilder();
      b.append("| fault | iterations | overlaps | stale writes accepted | longest time without a leader"
          + " | spurious losses | overlaps excused (frozen) | stale writes fenced | longest heal-to-MASTER |"
          + " liveness misses | losses or misses in measured CPU stalls | overlaps with a clock beyond bound |\n");
      b.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
      FaultStats all = new FaultStats();
      for (Map.Entry<String, FaultStats> e : stats.entrySet()) {
        e.getValue().appendRow(b, e.getKey());
        all.add(e.getValue());
      }
      all.appendRow(b, "**all**");
      b.append("\nstore: ").append(totals.storeWrites).append(" writes applied, counter = ")
          .append(totals.finalCounter).append("; attempts: ").append(totals.ok).append(" OK, ")
          .append(totals.fenced).append(" FENCED, ").append(totals.conflict).append(" CONFLICT, ")
          .append(totals.error).append(" ERROR (").append(totals.errorApplied)
          .append(" of them applied); terms: ").append(totals.terms).append("; CPU stalls >= ")
          .append(ms(totals.stallThreshold)).append(": ").append(totals.stalls).append(" (longest ")
          .append(ms(totals.longestStall)).append(")\n");
      return b.toString();
    }
  }

  /** Totals are run-wide counts for the line under the table. */
  public record Totals(
      int storeWrites, long finalCounter, int ok, int fenced, int conflict, int error, int errorApplied, int terms,
      long stallThreshold, int stalls, long longestStall) {}

  /** check runs every check on the history. */
  public static Result check(History h) {
    List<ChaosViolation> out = new ArrayList<>();
    Map<String, FaultStats> stats = new LinkedHashMap<>();
    for (FaultWindow f : h.faults()) {
      stats.computeIfAbsent(f.fault(), k -> new FaultStats()).iterations++;
    }
    Attribution at = new Attribution(h);
    checkOverlaps(h, at, out, stats);
    int fenced = checkStale(h, at, out, stats);
    int[] errorApplied = new int[1];
    checkCounter(h, at, out, errorApplied);
    checkLiveness(h, at, out, stats);
    checkSpurious(h, at, out, stats);
    int ok = 0;
    int conflict = 0;
    int error = 0;
    for (Attempt a : h.attempts()) {
      switch (a.outcome()) {
        case OK -> ok++;
        case CONFLICT -> conflict++;
        case ERROR -> error++;
        default -> { }
      }
    }
    long threshold = h.params().stallNanos();
    int stalls = 0;
    long longestStall = 0;
    for (Freeze f : h.stalls()) {
      if (f.to() - f.from() >= threshold) {
        stalls++;
      }
      longestStall = Math.max(longestStall, f.to() - f.from());
    }
    Totals totals = new Totals(h.storeWrites().size(), h.finalCounter(), ok, fenced, conflict, error,
        errorApplied[0], h.intervals().size(), threshold, stalls, longestStall);
    out.sort((x, y) -> Long.compare(x.at(), y.at()));
    INDEX.remove();
    INDEXED.remove();
    return new Result(List.copyOf(out), stats, totals);
  }

  // ---- 1. overlaps ----

  private static void checkOverlaps(History h, Attribution at, List<ChaosViolation> out, Map<String, FaultStats> stats) {
    List<Interval> iv = h.intervals();
    for (int i = 0; i < iv.size(); i++) {
      Interval a = iv.get(i);
      for (int j = i + 1; j < iv.size(); j++) {
        Interval b = iv.get(j);
        if (b.start() >= a.end()) {
          // Sorted by start: later ones may still overlap a, so only skip, do not stop.
          continue;
        }
        if (a.process().equals(b.process())) {
          continue;
        }
        long from = b.start();
        long to = Math.min(a.end(), b.end());
        if (to <= from) {
          continue;
        }
        boolean excused = frozenDuring(h, a, to) || frozenDuring(h, b, to);
        boolean clockBeyondBound = !excused && (clockBeyondBound(h, a) || clockBeyondBound(h, b));
        String detail = a.process() + " (token " + a.token() + ", " + a.start() + ".." + a.end() + " "
            + a.endCause() + ") and " + b.process() + " (token " + b.token() + ", " + b.start() + ".."
            + b.end() + " " + b.endCause() + ") both MASTER for " + ms(to - from);
        FaultStats s = at.stats(stats, from);
        if (excused) {
          if (s != null) {
            s.excusedOverlaps++;
          }
        } else if (clockBeyondBound) {
          // Expected: the elector promises safety only within 1 ± maxDriftRate; fencing still
          // holds (check 2).
          if (s != null) {
            s.clockBeyondBoundOverlaps++;
          }
        } else {
          if (s != null) {
            s.overlaps++;
          }
          out.add(at.violation(ChaosViolation.Kind.OVERLAP, from, detail));
        }
      }
    }
  }

  /** clockBeyondBound: the interval's process ran with a clock rate beyond the elector's bound. */
  private static boolean clockBeyondBound(History h, Interval iv) {
    return h.clocks().stream().anyMatch(c -> c.beyondBound() && c.process().equals(iv.process()));
  }

  /** frozenDuring: the interval's process was stopped at some point between its start and {@code until}. */
  private static boolean frozenDuring(History h, Interval iv, long until) {
    for (Freeze f : h.freezes()) {
      if (f.process().equals(iv.process()) && f.from() < until && f.to() > iv.start()) {
        return true;
      }
    }
    for (Freeze f : h.stalls()) {
      if (f.process().equals(iv.process()) && f.to() - f.from() > h.params().marginNanos() && f.from() < until
          && f.to() > iv.start()) {
        return true;
      }
    }
    return false;
  }

  /** stalledDuring: the process, the whole machine, or the store, stalled for the threshold or more within [from, to]. */
  private static boolean stalledDuring(History h, String process, long from, long to) {
    for (Freeze f : h.stalls()) {
      // "store": the store itself could not commit (MariaDB's CommitProbe); it stands for every process.
      boolean who = process == null || f.process().equals(process) || f.process().equals("harness")
          || f.process().equals("store");
      if (who && f.to() - f.from() >= h.params().stallNanos() && f.from() < to && f.to() > from) {
        return true;
      }
    }
    return false;
  }

  // ---- 2. stale writes ----

  private static int checkStale(History h, Attribution at, List<ChaosViolation> out, Map<String, FaultStats> stats) {
    int fenced = 0;
    for (Attempt a : h.attempts()) {
      if (a.outcome() == Outcome.FENCED) {
        fenced++;
        FaultStats s = at.stats(stats, a.send());
        if (s != null) {
          s.fenced++;
        }
      }
      if (a.outcome() != Outcome.OK) {
        continue;
      }
      for (Interval newer : h.intervals()) {
        if (newer.token() > a.token() && newer.start() < a.send()) {
          FaultStats s = at.stats(stats, a.send());
          if (s != null) {
            s.staleAccepted++;
          }
          out.add(at.violation(ChaosViolation.Kind.STALE_WRITE, a.send(),
              a.process() + " write #" + a.seq() + " with token " + a.token() + " sent at " + a.send()
                  + " was accepted although " + newer.process() + " was elected with token " + newer.token()
                  + " at " + newer.start()));
          break;
        }
      }
    }
    // Store side: each applied write carried the token of the key incarnation alive at its revision.
    for (StoreWrite w : h.storeWrites()) {
      Incarnation live = null;
      for (Incarnation inc : h.incarnations()) {
        if (inc.startRevision() <= w.revision() && w.revision() < inc.endRevision()) {
          live = inc;
        }
      }
      if (live == null || live.token() != w.token()) {
        long t = sendTimeOf(h, w);
        FaultStats s = at.stats(stats, t);
        if (s != null) {
          s.staleAccepted++;
        }
        out.add(at.violation(ChaosViolation.Kind.STALE_WRITE, t,
            "store write at revision " + w.revision() + " by " + w.writer() + " #" + w.seq() + " carried token "
                + w.token() + " but the term alive at that revision was "
                + (live == null ? "none" : "token " + live.token() + " (" + live.holder() + ")")));
      }
    }
    return fenced;
  }

  // ---- 3. the counter ----

  private static void checkCounter(History h, Attribution at, List<ChaosViolation> out, int[] errorApplied) {
    Map<String, Attempt> attempts = new HashMap<>();
    for (Attempt a : h.attempts()) {
      attempts.put(a.process() + "#" + a.seq(), a);
    }
    Map<String, StoreWrite> applied = new HashMap<>();
    long expected = 1;
    long lastToken = Long.MIN_VALUE;
    for (StoreWrite w : h.storeWrites()) {
      long t = sendTimeOf(h, w);
      String id = w.writer() + "#" + w.seq();
      if (w.n() != expected) {
        out.add(at.violation(ChaosViolation.Kind.COUNTER, t, "store write at revision " + w.revision() + " by " + id
            + " set the counter to " + w.n() + ", expected " + expected + " (a write was lost or doubled)"));
      }
      expected = w.n() + 1;
      if (w.token() < lastToken) {
        out.add(at.violation(ChaosViolation.Kind.COUNTER, t, "store write at revision " + w.revision() + " by " + id
            + " carried token " + w.token() + " after a write with token " + lastToken));
      }
      lastToken = Math.max(lastToken, w.token());
      if (applied.put(id, w) != null) {
        out.add(at.violation(ChaosViolation.Kind.COUNTER, t, "attempt " + id + " was applied twice"));
      }
      Attempt a = attempts.get(id);
      if (a == null) {
        out.add(at.violation(ChaosViolation.Kind.COUNTER, t, "store write at revision " + w.revision() + " by " + id
            + " matches no logged attempt"));
      } else if (a.outcome() == Outcome.FENCED || a.outcome() == Outcome.CONFLICT) {
        out.add(at.violation(ChaosViolation.Kind.COUNTER, t, "attempt " + id + " was reported " + a.outcome()
            + " but the store applied it at revision " + w.revision()));
      } else if (a.outcome() == Outcome.ERROR) {
        errorApplied[0]++;
      }
    }
    for (Attempt a : h.attempts()) {
      if (a.outcome() == Outcome.OK && !applied.containsKey(a.process() + "#" + a.seq())) {
        out.add(at.violation(ChaosViolation.Kind.COUNTER, a.send(), "attempt " + a.process() + "#" + a.seq()
            + " was reported OK (value " + a.value() + ") but the store has no such write (lost)"));
      }
    }
    if (h.finalCounter() != h.storeWrites().size()) {
      out.add(at.violation(ChaosViolation.Kind.COUNTER, h.runEnd(), "final counter is " + h.finalCounter() + " but the store applied "
          + h.storeWrites().size() + " writes"));
    }
  }

  private static long sendTimeOf(History h, StoreWrite w) {
    Map<String, Attempt> index = INDEX.get();
    if (index == null || INDEXED.get() != h) {
      index = new HashMap<>();
      for (Attempt a : h.attempts()) {
        index.put(a.process() + "#" + a.seq(), a);
      }
      INDEX.set(index);
      INDEXED.set(h);
    }
    Attempt a = index.get(w.writer() + "#" + w.seq());
    return a != null ? a.send() : h.runEnd();
  }

  // Per-thread memo of the attempt index of the history being checked (check() is stateless otherwise).
  private static final ThreadLocal<Map<String, Attempt>> INDEX = new ThreadLocal<>();
  private static final ThreadLocal<History> INDEXED = new ThreadLocal<>();

  // ---- 4. liveness, and time without a leader ----

  private static void checkLiveness(History h, Attribution at, List<ChaosViolation> out, Map<String, FaultStats> stats) {
    List<long[]> covered = Coverage.of(h);
    long bound = h.params().livenessBoundNanos();
    List<FaultWindow> faults = h.faults();
    for (int i = 0; i < faults.size(); i++) {
      FaultWindow f = faults.get(i);
      FaultStats s = stats.get(f.fault());
      long firstMaster = Coverage.firstCoveredAtOrAfter(covered, f.recover());
      long toMaster = firstMaster == Long.MAX_VALUE ? Long.MAX_VALUE : firstMaster - f.recover();
      if (toMaster > bound && f.recover() + bound <= h.runEnd()
          && stalledDuring(h, null, f.recover(), f.recover() + bound)) {
        s.excusedByStall++;
      } else if (toMaster > bound && f.recover() + bound <= h.runEnd()) {
        s.livenessMisses++;
        out.add(new ChaosViolation(ChaosViolation.Kind.LIVENESS, f.recover(), f.fault(), f.iteration(),
            "no MASTER within " + ms(bound) + " of healing " + f.fault() + " on " + f.target() + " (first MASTER "
                + (toMaster == Long.MAX_VALUE ? "never" : "after " + ms(toMaster)) + ")"));
      }
      if (toMaster != Long.MAX_VALUE) {
        s.longestTimeToMaster = Math.max(s.longestTimeToMaster, toMaster);
      }
      long windowEnd = i + 1 < faults.size() ? faults.get(i + 1).inject() : h.runEnd();
      s.longestLeaderless = Math.max(s.longestLeaderless, Coverage.longestGap(covered, f.inject(), windowEnd));
    }
  }


  // ---- 5. spurious losses ----

  private static void checkSpurious(History h, Attribution at, List<ChaosViolation> out, Map<String, FaultStats> stats) {
    long ttl = h.params().ttlNanos();
    if (ttl < h.params().spuriousMinTtlNanos()) {
      return;
    }
    for (Interval iv : h.intervals()) {
      if (!iv.isLoss()) {
        continue;
      }
      long loss = iv.end();
      boolean excused = false;
      for (FaultWindow f : h.faults()) {
        boolean recent = f.inject() <= loss && f.recover() >= loss - ttl;
        if (!recent) {
          continue;
        }
        if (!f.quorumKept()
            || f.kind() == History.TargetKind.CANDIDATE && f.target().equals(iv.process())) {
          excused = true;
          break;
        }
      }
      if (!excused && stalledDuring(h, iv.process(), loss - ttl, loss)) {
        FaultStats s = at.stats(stats, loss);
        if (s != null) {
          s.excusedByStall++;
        }
      } else if (!excused) {
        FaultStats s = at.stats(stats, loss);
        if (s != null) {
          s.spuriousLosses++;
        }
        out.add(at.violation(ChaosViolation.Kind.SPURIOUS_LOSS, loss, iv.process() + " lost its term (token " + iv.token()
            + ", elected at " + iv.start() + ") by " + iv.endCause() + " although its process and links were"
            + " healthy and the store stayed available"));
      }
    }
  }


  static String ms(long nanos) {
    if (nanos == Long.MAX_VALUE) {
      return "never";
    }
    return String.format(Locale.ROOT, "%d ms", nanos / 1_000_000);
  }
}
