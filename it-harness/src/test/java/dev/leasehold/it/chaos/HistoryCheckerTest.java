package dev.leasehold.it.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.it.chaos.History.Attempt;
import dev.leasehold.it.chaos.History.FaultWindow;
import dev.leasehold.it.chaos.History.Freeze;
import dev.leasehold.it.chaos.History.Incarnation;
import dev.leasehold.it.chaos.History.Interval;
import dev.leasehold.it.chaos.History.Outcome;
import dev.leasehold.it.chaos.History.StoreWrite;
import dev.leasehold.it.chaos.History.TargetKind;
import dev.leasehold.it.chaos.ChaosViolation.Kind;
import dev.leasehold.it.chaos.HistoryChecker.Result;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * HistoryCheckerTest feeds the checker hand-made histories: a clean one passes, and each kind
 * of broken promise (overlap, stale write, lost/doubled write, no leader after a heal,
 * spurious loss) is caught, while the excused cases (a frozen process, the cut candidate) are
 * not reported.
 */
class HistoryCheckerTest {
  private static final long S = 1_000_000_000L;
  private static final long MS = 1_000_000L;

  /**
   * Builder of a small history: a in [0, 10 s) with token 2, then b from 13 s with token 20;
   * one fault (kill of a) from 10 s to 10.5 s; writes by a and b with tokens 2 and 20.
   */
  private static final class H {
    long ttl = 3 * S;
    long spuriousMinTtl = 3 * S;
    List<Interval> intervals = new ArrayList<>();
    List<Attempt> attempts = new ArrayList<>();
    List<FaultWindow> faults = new ArrayList<>();
    List<Freeze> freezes = new ArrayList<>();
    List<Freeze> stalls = new ArrayList<>();
    List<StoreWrite> store = new ArrayList<>();
    List<Incarnation> incarnations = new ArrayList<>();
    List<History.ClockRate> clocks = new ArrayList<>();
    Long finalCounter;
    long end = 20 * S;

    static H clean() {
      H h = new H();
      h.intervals.add(new Interval("a.1", 2, 0, 10 * S, "KILLED"));
      h.intervals.add(new Interval("b.1", 20, 13 * S, 20 * S, "CLOSED"));
      h.faults.add(new FaultWindow(1, "candidate-kill", TargetKind.CANDIDATE, "a.1", true, 10 * S, 10 * S + 500 * MS));
      h.incarnations.add(new Incarnation(2, 19, "a.1"));
      h.incarnations.add(new Incarnation(20, Long.MAX_VALUE, "b.1"));
      h.write("a.1", 1, 2, 1 * S, Outcome.OK, 3);
      h.write("a.1", 2, 2, 2 * S, Outcome.OK, 4);
      h.write("b.1", 1, 20, 14 * S, Outcome.OK, 21);
      return h;
    }

    /** write logs an attempt and, for OK, the store write at the given revision. */
    void write(String process, long seq, long token, long send, Outcome outcome, long revision) {
      long n = attempts.stream().filter(a -> a.outcome() == Outcome.OK).count() + 1;
      attempts.add(new Attempt(process, seq, token, send - MS, send, send + MS, outcome, n));
      if (outcome == Outcome.OK) {
        store.add(new StoreWrite(revision, n, process, token, seq));
      }
    }

    History build() {
      long counter = finalCounter != null ? finalCounter : store.size();
      return new History(new History.Params(ttl, 500 * MS, spuriousMinTtl), intervals, attempts, faults, freezes, stalls, store,
          incarnations, counter, 0, end, clocks);
    }
  }

  private static Result check(H h) {
    return HistoryChecker.check(h.build());
  }

  private static void assertOnly(Result r, ChaosViolation.Kind kind) {
    assertTrue(!r.violations().isEmpty(), "expected a " + kind + " violation");
    assertTrue(r.violations().stream().allMatch(v -> v.kind() == kind), () -> "expected only " + kind + ": " + r.violations());
  }

  @Test
  void aCleanHistoryPassesAndIsMeasured() {
    Result r = check(H.clean());
    assertTrue(r.ok(), () -> r.violations().toString());
    FaultStats s = r.stats().get("candidate-kill");
    assertEquals(1, s.iterations());
    assertEquals(3 * S, s.longestLeaderlessNanos(), "no leader from the kill at 10 s to b's election at 13 s");
    assertTrue(r.table().contains("| candidate-kill | 1 | 0 | 0 | 3000 ms | 0 | 0 | 0 | 2500 ms | 0 | 0 |"), r.table());
  }

  @Test
  void overlappingTermsOfHealthyProcessesAreCaught() {
    H h = H.clean();
    h.intervals.set(1, new Interval("b.1", 20, 9 * S, 20 * S, "CLOSED"));
    Result r = check(h);
    assertOnly(r, ChaosViolation.Kind.OVERLAP);
    assertEquals(1, r.stats().values().stream().mapToInt(FaultStats::overlaps).sum());
  }

  @Test
  void anOverlapExplainedByAFreezeIsExcused() {
    H h = H.clean();
    h.intervals.set(0, new Interval("a.1", 2, 0, 16 * S, "LEASE_EXPIRED_LOCALLY"));
    h.freezes.add(new Freeze("a.1", 9 * S, 15 * S + 900 * MS));
    h.faults.set(0, new FaultWindow(1, "candidate-pause", TargetKind.CANDIDATE, "a.1", true, 9 * S, 15 * S + 900 * MS));
    Result r = check(h);
    assertTrue(r.ok(), () -> r.violations().toString());
  }

  // b elected at 9 s while a, whose clock ran at rate, held its term until 10 s.
  private static Result overlapWithAClockAt(double rate, boolean beyondBound) {
    H h = H.clean();
    h.intervals.set(1, new Interval("b.1", 20, 9 * S, 20 * S, "CLOSED"));
    h.clocks.add(new History.ClockRate("a.1", rate, beyondBound));
    return check(h);
  }

  @Test
  void anOverlapWithAClockBeyondTheBoundIsReportedAndNoViolation() {
    Result r = overlapWithAClockAt(0.5, true);
    assertTrue(r.ok(), () -> r.violations().toString());
    assertEquals(1, r.stats().values().stream().mapToInt(f -> f.clockBeyondBoundOverlaps).sum());
    assertTrue(r.table().contains("| **all** | 1 | 0 | 0 | 0 ms | 0 | 0 | 0 | 0 ms | 0 | 0 | 1 |"), r.table());
  }

  @Test
  void anOverlapWithAClockWithinTheBoundIsAViolation() {
    assertOnly(overlapWithAClockAt(0.995, false), ChaosViolation.Kind.OVERLAP);
  }

  @Test
  void aStaleWriteAcceptedAfterANewerElectionIsCaught() {
    H h = H.clean();
    // a, frozen, sends with token 2 at 15 s, after b was elected with token 20 at 13 s: accepted.
    h.intervals.set(0, new Interval("a.1", 2, 0, 16 * S, "LEASE_EXPIRED_LOCALLY"));
    h.freezes.add(new Freeze("a.1", 9 * S, 15 * S));
    h.write("a.1", 3, 2, 15 * S, Outcome.OK, 22);
    Result r = check(h);
    assertTrue(r.violations().stream().anyMatch(v -> v.kind() == ChaosViolation.Kind.STALE_WRITE), () -> r.violations().toString());
  }

  @Test
  void theSameStaleWriteFencedIsFineAndCounted() {
    H h = H.clean();
    h.intervals.set(0, new Interval("a.1", 2, 0, 16 * S, "LEASE_EXPIRED_LOCALLY"));
    h.freezes.add(new Freeze("a.1", 9 * S, 15 * S));
    h.faults.set(0, new FaultWindow(1, "candidate-pause", TargetKind.CANDIDATE, "a.1", true, 9 * S, 15 * S));
    h.write("a.1", 3, 2, 15 * S + 100 * MS, Outcome.FENCED, 0);
    Result r = check(h);
    assertTrue(r.ok(), () -> r.violations().toString());
    assertTrue(r.table().contains("| candidate-pause | 1 | 0 | 0 |"), r.table());
    assertEquals(1, r.totals().fenced());
  }

  @Test
  void aStoreWriteUnderAnotherIncarnationIsCaughtEvenIfNoClientSawIt() {
    H h = H.clean();
    // etcd applied a's write at revision 25, when the key's incarnation was b's (20).
    h.attempts.add(new Attempt("a.1", 3, 2, 9 * S, 9 * S, 10 * S, Outcome.ERROR, 4));
    h.store.add(new StoreWrite(25, 4, "a.1", 2, 3));
    Result r = check(h);
    assertTrue(r.violations().stream().anyMatch(v -> v.kind() == ChaosViolation.Kind.STALE_WRITE && v.detail().contains("revision 25")),
        () -> r.violations().toString());
    assertTrue(r.violations().stream().anyMatch(v -> v.kind() == ChaosViolation.Kind.COUNTER && v.detail().contains("token 2 after")),
        () -> r.violations().toString());
  }

  @Test
  void anAcknowledgedWriteMissingFromTheStoreIsALostWrite() {
    H h = H.clean();
    h.store.remove(1);
    h.store.set(1, new StoreWrite(21, 2, "b.1", 20, 1));
    Result r = check(h);
    assertOnly(r, ChaosViolation.Kind.COUNTER);
    assertTrue(r.violations().stream().anyMatch(v -> v.detail().contains("lost")), () -> r.violations().toString());
  }

  @Test
  void aDoubledWriteAndAFencedAttemptThatWasAppliedAreCaught() {
    H h = H.clean();
    // b's write applied twice (the counter jumps back), and a FENCED attempt that etcd applied.
    h.store.add(new StoreWrite(22, 3, "b.1", 20, 1));
    h.attempts.add(new Attempt("b.1", 2, 20, 15 * S, 15 * S, 15 * S + MS, Outcome.FENCED, 3));
    h.store.add(new StoreWrite(23, 4, "b.1", 20, 2));
    Result r = check(h);
    assertOnly(r, ChaosViolation.Kind.COUNTER);
    assertTrue(r.violations().stream().anyMatch(v -> v.detail().contains("applied twice")), () -> r.violations().toString());
    assertTrue(r.violations().stream().anyMatch(v -> v.detail().contains("reported FENCED")), () -> r.violations().toString());
  }

  @Test
  void aCounterThatDoesNotMatchTheAppliedWritesIsCaught() {
    H h = H.clean();
    h.finalCounter = 4L;
    assertOnly(check(h), ChaosViolation.Kind.COUNTER);
  }

  @Test
  void anUnknownOutcomeThatWasAppliedIsAccountedFor() {
    H h = H.clean();
    h.attempts.add(new Attempt("b.1", 2, 20, 15 * S, 15 * S, 16 * S, Outcome.ERROR, 4));
    h.store.add(new StoreWrite(22, 4, "b.1", 20, 2));
    Result r = check(h);
    assertTrue(r.ok(), () -> r.violations().toString());
    assertEquals(1, r.totals().errorApplied());
  }

  @Test
  void noMasterWithinTheBoundAfterAHealIsALivenessViolation() {
    H h = H.clean();
    // Bound: TTL 3 s + 2 × 0.5 s + 1 s = 5 s after the heal at 10.5 s; b only at 16 s.
    h.intervals.set(1, new Interval("b.1", 20, 16 * S, 20 * S, "CLOSED"));
    h.write("b.1", 2, 20, 17 * S, Outcome.OK, 22);
    Result r = check(h);
    assertOnly(r, ChaosViolation.Kind.LIVENESS);
  }

  @Test
  void aFrozenMasterDoesNotCountAsAMaster() {
    H h = H.clean();
    // a is MASTER on paper until 18 s but frozen from 9 s to 17.9 s, and no one else leads:
    // 8.9 s without a leader, and no MASTER within the bound after an earlier heal at 10 s.
    h.intervals.set(0, new Interval("a.1", 2, 0, 18 * S, "LEASE_EXPIRED_LOCALLY"));
    h.intervals.remove(1);
    h.attempts.removeIf(a -> a.process().equals("b.1"));
    h.store.removeIf(w -> w.writer().equals("b.1"));
    h.freezes.add(new Freeze("a.1", 9 * S, 17 * S + 900 * MS));
    h.faults.set(0, new FaultWindow(1, "etcd-kill-follower", TargetKind.STORE, "m1", true, 9 * S + 500 * MS, 10 * S));
    h.faults.add(new FaultWindow(2, "candidate-pause", TargetKind.CANDIDATE, "a.1", true, 9 * S, 17 * S + 900 * MS));
    Result r = check(h);
    assertOnly(r, ChaosViolation.Kind.LIVENESS);
    assertEquals(8 * S + 400 * MS, r.stats().get("etcd-kill-follower").longestLeaderlessNanos());
  }

  @Test
  void aHealthyMasterLosingItsTermIsASpuriousLoss() {
    H h = H.clean();
    // b loses at 18 s by its local deadline; the only fault hit a, long before.
    h.intervals.set(1, new Interval("b.1", 20, 13 * S, 18 * S, "LEASE_EXPIRED_LOCALLY"));
    h.end = 19 * S;
    Result r = check(h);
    assertOnly(r, ChaosViolation.Kind.SPURIOUS_LOSS);
    assertEquals(1, r.stats().get("candidate-kill").spuriousLosses());
  }

  @Test
  void aLossDuringAMeasuredCpuStallIsCountedApartNotAsSpurious() {
    H h = H.clean();
    h.intervals.set(1, new Interval("b.1", 20, 13 * S, 18 * S, "LEASE_EXPIRED_LOCALLY"));
    h.end = 19 * S;
    // The machine (harness) did not run for 400 ms a second before b's loss.
    h.stalls.add(new Freeze("harness", 17 * S, 17 * S + 400 * MS));
    Result r = check(h);
    assertTrue(r.ok(), () -> r.violations().toString());
    assertTrue(r.table().contains("| candidate-kill | 1 | 0 | 0 | 3000 ms | 0 | 0 | 0 | 2500 ms | 0 | 1 |"), r.table());
    // A short stall (under the threshold, 250 ms here) excuses nothing.
    h.stalls.set(0, new Freeze("harness", 17 * S, 17 * S + 200 * MS));
    assertOnly(check(h), ChaosViolation.Kind.SPURIOUS_LOSS);
  }

  @Test
  void aStallLongerThanTheMarginExcusesAnOverlapLikeAFreezeButNeverAStaleWrite() {
    H h = H.clean();
    h.intervals.set(0, new Interval("a.1", 2, 0, 13 * S + 200 * MS, "KILLED"));
    h.stalls.add(new Freeze("a.1", 9 * S, 13 * S + 100 * MS));
    Result r = check(h);
    assertTrue(r.ok(), () -> r.violations().toString());
    h.write("a.1", 3, 2, 13 * S + 150 * MS, Outcome.OK, 22);
    assertTrue(check(h).violations().stream().anyMatch(v -> v.kind() == ChaosViolation.Kind.STALE_WRITE));
  }

  @Test
  void theTargetOfACandidateFaultMayLoseItsTerm() {
    H h = H.clean();
    h.intervals.set(0, new Interval("a.1", 2, 0, 12 * S, "LEASE_EXPIRED_LOCALLY"));
    h.faults.set(0, new FaultWindow(1, "candidate-cut-blackhole", TargetKind.CANDIDATE, "a.1", true, 10 * S, 14 * S));
    Result r = check(h);
    assertTrue(r.ok(), () -> r.violations().toString());
  }

  @Test
  void aLossWhileEtcdLostQuorumIsNotSpuriousAndShortTtlsAreNotJudged() {
    H h = H.clean();
    h.intervals.set(1, new Interval("b.1", 20, 13 * S, 18 * S, "LEASE_EXPIRED_LOCALLY"));
    h.end = 19 * S;
    h.faults.add(new FaultWindow(2, "etcd-quorum-loss", TargetKind.STORE, "all", false, 16 * S, 17 * S));
    assertTrue(check(h).ok(), () -> check(h).violations().toString());

    H shortTtl = H.clean();
    shortTtl.ttl = 2 * S;
    shortTtl.intervals.set(1, new Interval("b.1", 20, 13 * S, 18 * S, "LEASE_EXPIRED_LOCALLY"));
    shortTtl.end = 19 * S;
    assertTrue(check(shortTtl).ok(), () -> check(shortTtl).violations().toString());
  }

  /**
   * mariaDb is the clean history as the MariaDB store records it: revisions are the log table's
   * sequence, and a term's token is the row's epoch (1, 2), not the revision it began at.
   */
  private static H mariaDb() {
    H h = new H();
    h.ttl = 2 * S;
    h.spuriousMinTtl = 0;
    h.intervals.add(new Interval("a.1", 1, 0, 10 * S, "KILLED"));
    h.intervals.add(new Interval("b.1", 2, 13 * S, 20 * S, "CLOSED"));
    h.faults.add(new FaultWindow(1, "candidate-kill", TargetKind.CANDIDATE, "a.1", true, 10 * S, 10 * S + 500 * MS));
    h.incarnations.add(new Incarnation(1, 5, "a.1", 1));
    h.incarnations.add(new Incarnation(5, Long.MAX_VALUE, "b.1", 2));
    h.write("a.1", 1, 1, 1 * S, Outcome.OK, 2);
    h.write("a.1", 2, 1, 2 * S, Outcome.OK, 3);
    h.write("b.1", 1, 2, 14 * S, Outcome.OK, 6);
    return h;
  }

  @Test
  void onMariaDbTheStoreSideCheckComparesTheEpochNotTheRevision() {
    Result clean = check(mariaDb());
    assertTrue(clean.ok(), () -> clean.violations().toString());
    H h = mariaDb();
    // a's write, logged at revision 7 under b's term (epoch 2), carried epoch 1.
    h.attempts.add(new Attempt("a.1", 3, 1, 9 * S, 9 * S, 10 * S, Outcome.ERROR, 4));
    h.store.add(new StoreWrite(7, 4, "a.1", 1, 3));
    Result r = check(h);
    assertTrue(r.violations().stream().anyMatch(v -> v.kind() == ChaosViolation.Kind.STALE_WRITE && v.detail().contains("token 2")),
        () -> r.violations().toString());
  }

  @Test
  void onMariaDbATermEndedByStoreUnavailableIsALossJudgedAtEveryTtl() {
    H h = mariaDb();
    // b's term session fails at 18 s with no fault near: spurious, although TTL is 2 s.
    h.intervals.set(1, new Interval("b.1", 2, 13 * S, 18 * S, "STORE_UNAVAILABLE"));
    h.end = 19 * S;
    assertOnly(check(h), ChaosViolation.Kind.SPURIOUS_LOSS);
    // The same loss while mariadbd was down is expected.
    h.faults.add(new FaultWindow(2, "mariadb-kill", TargetKind.STORE, "mariadbd", false, 17 * S, 18 * S));
    assertTrue(check(h).ok(), () -> check(h).violations().toString());
  }

  @Test
  void aSlowStoreCommitExcusesATimedOutRenewalButNeverAnOverlap() {
    H h = mariaDb();
    h.intervals.set(1, new Interval("b.1", 2, 13 * S, 18 * S, "STORE_UNAVAILABLE"));
    h.end = 19 * S;
    // The store took 600 ms to commit the probe's row just before b's renewal timed out.
    h.stalls.add(new Freeze("store", 17 * S + 500 * MS, 18 * S + 100 * MS));
    Result r = check(h);
    assertTrue(r.ok(), () -> r.violations().toString());
    assertEquals(1, r.stats().get("candidate-kill").excusedByStall);
    // The same stall does not excuse two MASTERs at once.
    h.intervals.set(0, new Interval("a.1", 1, 0, 17 * S + 900 * MS, "KILLED"));
    h.stalls.add(new Freeze("store", 13 * S, 17 * S + 900 * MS));
    assertTrue(check(h).violations().stream().anyMatch(v -> v.kind() == ChaosViolation.Kind.OVERLAP),
        () -> check(h).violations().toString());
  }
}
