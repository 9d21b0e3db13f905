package dev.leasehold.it.chaos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * History is everything a chaos run observed, in the form {@link HistoryChecker} checks: the
 * candidates' leadership intervals and write attempts (their own monotonic stamps, comparable
 * across processes on one Linux host), the faults and freezes the harness caused, and what
 * the store itself recorded (every write to the counter, every incarnation of the election
 * key or lease row), in the store's own order (etcd revisions; on MariaDB, the sequence of a
 * log table written in the same transactions).
 *
 * <p>Immutable once built (the lists are copied); thread-safe.
 *
 * @param params timing parameters of the run
 * @param intervals leadership intervals, ELECTED to the event that left MASTER
 * @param attempts counter write attempts, as the candidates logged them
 * @param faults the fault windows, in order
 * @param freezes SIGSTOP..SIGCONT windows of candidate processes
 * @param stalls windows in which a candidate process, or the harness ("harness"), measured that
 *     it did not get the CPU (overloaded machine, GC); a stall of the harness stands for the
 *     whole machine, the store's processes included; a stall of "store" is a commit the store
 *     took that long to make (MariaDB's {@link CommitProbe})
 * @param storeWrites every write the store applied to the counter, in revision order
 * @param incarnations every term as the store recorded it, in revision order
 * @param finalCounter the counter's value at the end (0 if absent)
 * @param runStart monotonic time the candidates started
 * @param runEnd monotonic time the candidates were closed
 * @param clocks the candidate processes that ran under libfaketime at another clock rate (their
 *     stamps here are already mapped to the shared clock)
 */
public record History(
    Params params,
    List<Interval> intervals,
    List<Attempt> attempts,
    List<FaultWindow> faults,
    List<Freeze> freezes,
    List<Freeze> stalls,
    List<StoreWrite> storeWrites,
    List<Incarnation> incarnations,
    long finalCounter,
    long runStart,
    long runEnd,
    List<ClockRate> clocks) {

  /**
   * History without clock-rate faults: every candidate ran on the shared clock.
   *
   * @param params timing parameters of the run
   * @param intervals leadership intervals
   * @param attempts counter write attempts
   * @param faults the fault windows
   * @param freezes SIGSTOP..SIGCONT windows
   * @param stalls measured scheduling stalls
   * @param storeWrites the store's applied writes
   * @param incarnations the store's terms
   * @param finalCounter the counter's final value
   * @param runStart when the candidates started
   * @param runEnd when they were closed
   */
  public History(Params params, List<Interval> intervals, List<Attempt> attempts, List<FaultWindow> faults,
      List<Freeze> freezes, List<Freeze> stalls, List<StoreWrite> storeWrites, List<Incarnation> incarnations,
      long finalCounter, long runStart, long runEnd) {
    this(params, intervals, attempts, faults, freezes, stalls, storeWrites, incarnations, finalCounter, runStart,
        runEnd, List.of());
  }

  /** History copies its lists and orders them by time (store lists by revision). */
  public History {
    clocks = List.copyOf(clocks);
    intervals = sorted(intervals, Comparator.comparingLong(Interval::start));
    attempts = sorted(attempts, Comparator.comparingLong(Attempt::send));
    faults = sorted(faults, Comparator.comparingLong(FaultWindow::inject));
    freezes = sorted(freezes, Comparator.comparingLong(Freeze::from));
    stalls = sorted(stalls, Comparator.comparingLong(Freeze::from));
    storeWrites = sorted(storeWrites, Comparator.comparingLong(StoreWrite::revision));
    incarnations = sorted(incarnations, Comparator.comparingLong(Incarnation::startRevision));
  }

  private static <T> List<T> sorted(List<T> in, Comparator<T> by) {
    List<T> out = new ArrayList<>(in);
    out.sort(by);
    return List.copyOf(out);
  }

  /**
   * Params are the run's timing settings.
   *
   * @param ttlNanos the lease TTL the store granted
   * @param electionTimeoutNanos etcd's election timeout; for a store without one (MariaDB), the
   *     nominal time it takes to recover from a fault once healed, which plays the same part
   * @param spuriousMinTtlNanos the smallest TTL at which check 5 (no spurious loss) applies: 3 s
   *     on etcd, whose leader failover does not fit a shorter TTL's renewal slack (CHAOS.md)
   */
  public record Params(long ttlNanos, long electionTimeoutNanos, long spuriousMinTtlNanos) {
    /** Params with check 5 from TTL 3 s on, as on etcd. */
    public Params(long ttlNanos, long electionTimeoutNanos) {
      this(ttlNanos, electionTimeoutNanos, 3_000_000_000L);
    }

    /** livenessBoundNanos is TTL + 2 × election timeout + 1 s: a MASTER must exist this soon after a heal. */
    public long livenessBoundNanos() {
      return ttlNanos + 2 * electionTimeoutNanos + 1_000_000_000L;
    }

    /** marginNanos is the elector's default safety margin, TTL/10: a longer stall can make it step down late. */
    public long marginNanos() {
      return ttlNanos / 10;
    }

    /**
     * stallNanos is the stall that counts as the machine not running the system: half etcd's
     * election timeout (a member starved that long can lose its leadership), at most the margin.
     */
    public long stallNanos() {
      return Math.min(marginNanos(), electionTimeoutNanos / 2);
    }
  }

  /**
   * Interval is one term as its holder saw it: from its ELECTED event to the event that took it
   * out of MASTER (a loss cause, CLOSED), or to the moment the harness killed it (KILLED), or to
   * the end of the run (OPEN).
   */
  public record Interval(String process, long token, long start, long end, String endCause) {
    /** isLoss is true when the term ended by one of the elector's loss causes (not resign, close or kill). */
    public boolean isLoss() {
      return switch (endCause) {
        // STORE_UNAVAILABLE ends a term only on the SQL backend, where the term is bound to its session.
        case "LEASE_EXPIRED_LOCALLY", "LEASE_REVOKED", "KEY_DELETED", "KEY_TAKEN", "STORE_UNAVAILABLE" -> true;
        default -> false;
      };
    }
  }

  /** Outcome of one write attempt; ERROR means unknown (it may have been applied). */
  public enum Outcome {
    OK,
    FENCED,
    CONFLICT,
    ERROR
  }

  /**
   * Attempt is one guarded write as the writer logged it.
   *
   * @param process writer's process id
   * @param seq the attempt's number within its process
   * @param token the fencing token the write carried
   * @param check when isValid() was checked before the attempt
   * @param send when the transaction was sent
   * @param end when its outcome was known
   * @param outcome what etcd said
   * @param value the value written (OK, ERROR) or found (FENCED, CONFLICT)
   */
  public record Attempt(
      String process, long seq, long token, long check, long send, long end, Outcome outcome, long value) {}

  /** TargetKind says whether a fault hits the store (etcd members, mariadbd) or one candidate (its process, links or session). */
  public enum TargetKind {
    STORE,
    CANDIDATE
  }

  /**
   * FaultWindow is one injected fault.
   *
   * @param iteration its number in the run, from 1
   * @param fault the fault's name
   * @param kind what it hits
   * @param target the member name or the candidate process id
   * @param quorumKept whether the store stayed available throughout (on etcd: a majority of
   *     members up and connected)
   * @param inject when it was injected
   * @param recover when it was healed
   */
  public record FaultWindow(
      int iteration, String fault, TargetKind kind, String target, boolean quorumKept, long inject, long recover) {}

  /**
   * ClockRate is a candidate process whose clock ran at another rate than the shared one (under
   * libfaketime) for its whole life.
   *
   * @param process the process id
   * @param rate its clock's rate against the shared clock, as asked
   * @param beyondBound whether the rate is outside the elector's {@code 1 ± maxDriftRate}: its
   *     overlaps with another term are then expected, reported and not violations
   */
  public record ClockRate(String process, double rate, boolean beyondBound) {}

  /** Freeze is a window in which a candidate process was stopped (SIGSTOP to SIGCONT). */
  public record Freeze(String process, long from, long to) {}

  /**
   * StoreWrite is one write the store applied to the counter.
   *
   * @param revision its revision
   * @param n the counter value it set
   * @param writer the writer's process id
   * @param token the fencing token the writer carried
   * @param seq the writer's attempt number
   */
  public record StoreWrite(long revision, long n, String writer, long token, long seq) {}

  /**
   * Incarnation is one term as the store recorded it: begun at a revision, ended at another
   * (MAX_VALUE: still there), and the fencing token a write in it must carry: on etcd the
   * key's mod revision (a campaign's create, a handover's put), on MariaDB the row's epoch.
   */
  public record Incarnation(long startRevision, long endRevision, String holder, long token) {
    /** Incarnation of an etcd term, whose token is the revision it began at (the key's mod revision). */
    public Incarnation(long startRevision, long endRevision, String holder) {
      this(startRevision, endRevision, holder, startRevision);
    }
  }
}
