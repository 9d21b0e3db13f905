package dev.leasehold.jdbc;

import static dev.leasehold.jdbc.SqlMachineHarness.MS;
import static dev.leasehold.jdbc.SqlMachineHarness.OBSERVED_WAIT;
import static dev.leasehold.jdbc.SqlMachineHarness.OTHER;
import static dev.leasehold.jdbc.SqlMachineHarness.S;
import static dev.leasehold.jdbc.SqlMachineHarness.WINDOW;
import static dev.leasehold.jdbc.SqlMachineHarness.held;
import static dev.leasehold.jdbc.SqlMachineHarness.released;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The SQL machine on its own: roles, timing and statements, with no database. */
class SqlMachineTest {
  private final SqlMachineHarness h = new SqlMachineHarness();

  @Test
  void anEmptyTableIsTakenWithAnInsertAfterTheLockAndLeadsFromTheTakesSendTime() {
    h.step(new Input.Start());
    h.answerRead(null);
    assertEquals(ElectorState.CANDIDATE, h.m.role());
    SqlCommand.Lock lock = h.only(SqlCommand.Lock.class);
    assertFalse(h.has(SqlCommand.Take.class), "the take waits for GET_LOCK(L(h), 0)");
    h.now += 3 * MS;
    h.step(new SqlInput.Locked(lock.op(), 1, true));
    long sentAt = h.now;
    SqlCommand.Take take = h.only(SqlCommand.Take.class);
    assertEquals(lock.holder(), take.holder());
    assertNull(take.basis(), "no row: S2");
    assertEquals(1, take.epoch());
    h.now += 400 * MS; // a slow reply earns nothing
    h.step(new SqlInput.Taken(take.op(), 1, true));
    assertEquals(List.of(Cause.ELECTED), h.published());
    assertEquals(1, h.term.token());
    assertEquals(sentAt + WINDOW, h.m.deadline());
    assertEquals(sentAt + WINDOW, h.timer(SqlTimer.DEADLINE).atNanos());
    assertEquals(sentAt + 2 * S / 6, h.timer(SqlTimer.RENEW).atNanos(), "renew every TTL/6");
    assertEquals(take.holder().leaseId(), h.term.leaseId());
    assertEquals(new SqlTerm("leasehold_lease", "e1", take.holder(), 1, 2 * S / 1_000_000), h.term.detail());
  }

  @Test
  void aRenewalMovesTheDeadlineToItsSendTimeNotItsReplyTime() {
    h.elect();
    h.fire(h.timer(SqlTimer.RENEW));
    long sentAt = h.now;
    SqlCommand.Renew renew = h.only(SqlCommand.Renew.class);
    assertEquals(1, renew.epoch());
    h.now += 450 * MS;
    h.step(new SqlInput.Renewed(renew.op(), 1, true));
    assertEquals(sentAt + WINDOW, h.m.deadline());
    assertEquals(sentAt + WINDOW, h.timer(SqlTimer.DEADLINE).atNanos());
    assertEquals(sentAt + 2 * S / 6, h.timer(SqlTimer.RENEW).atNanos());
  }

  @Test
  void theMasterStepsDownAtItsDeadlineAndReleasesTheRowBeforeItsLock() {
    long sentAt = h.elect();
    HolderToken me = h.holder();
    h.fire(h.timer(SqlTimer.DEADLINE));
    assertEquals(sentAt + WINDOW, h.now);
    assertEquals(ElectorState.FOLLOWER, h.m.role());
    assertEquals(List.of(Cause.LEASE_EXPIRED_LOCALLY), h.published());
    assertEquals(me, h.only(SqlCommand.Release.class).holder());
    assertTrue(h.indexOf(SqlCommand.Release.class) < h.indexOf(SqlCommand.Unlock.class));
    assertEquals(me, h.only(SqlCommand.Unlock.class).holder());
    assertTrue(h.has(SqlCommand.Read.class));
  }

  @Test
  void aStalledWorkResignReleasesLikeResignAndIsLabelledWorkStalled() {
    h.elect();
    HolderToken me = h.holder();
    h.step(new Input.Resign(Cause.WORK_STALLED));
    assertEquals(ElectorState.FOLLOWER, h.m.role());
    assertEquals(List.of(Cause.WORK_STALLED), h.published());
    assertEquals(me, h.only(SqlCommand.Release.class).holder());
  }

  @Test
  void resignReleasesTheRowThenTheLockThenHoldsOff() {
    h.elect();
    HolderToken me = h.holder();
    h.step(new Input.Resign());
    assertEquals(ElectorState.FOLLOWER, h.m.role());
    assertEquals(List.of(Cause.RESIGNED), h.published());
    int release = h.indexOf(SqlCommand.Release.class);
    int unlock = h.indexOf(SqlCommand.Unlock.class);
    assertTrue(release >= 0 && release < unlock, "S5 before RELEASE_LOCK: " + h.last);
    assertEquals(me, h.only(SqlCommand.Release.class).holder());
    assertEquals(1, h.only(SqlCommand.Release.class).epoch());
    long resignedAt = h.now;
    SqlCommand.Read read = h.only(SqlCommand.Read.class);
    long unlockOp = h.only(SqlCommand.Unlock.class).op();
    h.step(new SqlInput.Released(h.only(SqlCommand.Release.class).op(), 1, true));
    h.step(new SqlInput.Unlocked(unlockOp, 1));
    h.step(new SqlInput.RowRead(read.op(), 1, released(1, 3)));
    assertFalse(h.has(SqlCommand.Lock.class), "no take during the hold-off");
    // Default backoff 100 ms < poll 1 s: a free row is looked at again soon, so the next holder
    // ends the hold-off at once instead of a poll interval later.
    assertEquals(resignedAt + 100 * MS, h.timer(SqlTimer.POLL).atNanos(),
        "re-read within min(pollInterval, retryBackoffInitial)");
    // Someone else takes over: the hold-off has done its job, and the new holder is reported.
    h.fire(h.timer(SqlTimer.POLL));
    h.answerRead(held(OTHER, 2, 4, false));
    assertEquals(List.of(Cause.LEADER_CHANGED), h.published());
    assertEquals(2, h.m.leader().fencingToken());
    assertEquals(OTHER, h.only(SqlCommand.Await.class).holder());
  }

  @Test
  void theObservedWaitCountsFromTheReadsArrivalNotItsSendTime() {
    h.step(new Input.Start());
    long readSent = h.now;
    SqlCommand.Read read = h.only(SqlCommand.Read.class);
    h.now += 400 * MS;
    long arrival = h.now;
    h.step(new SqlInput.RowRead(read.op(), 1, held(OTHER, 3, 9, true)));
    assertEquals(List.of(Cause.LEADER_CHANGED), h.published());
    SqlCommand.Await await = h.only(SqlCommand.Await.class);
    assertEquals(S, await.waitNanos(), "min(pollInterval, observed wait left)");
    assertEquals(S + 500 * MS, await.timeoutNanos(500 * MS), "wait + rpcTimeout");
    // Nothing changes; the row keeps (holder, version) = (OTHER, 9) and says it is expired.
    h.now = readSent + OBSERVED_WAIT; // counted from the send time: would already allow a take
    h.step(new SqlInput.Woken(await.op(), 1, false));
    h.answerRead(held(OTHER, 3, 9, true));
    assertFalse(h.has(SqlCommand.Lock.class), "the wait counts from the reply's arrival");
    assertEquals(arrival + OBSERVED_WAIT - h.now, h.only(SqlCommand.Await.class).waitNanos());
    h.now = arrival + OBSERVED_WAIT;
    h.step(new SqlInput.Woken(h.only(SqlCommand.Await.class).op(), 1, false));
    h.answerRead(held(OTHER, 3, 9, true));
    assertEquals(ElectorState.CANDIDATE, h.m.role());
    SqlCommand.Lock lock = h.only(SqlCommand.Lock.class);
    h.step(new SqlInput.Locked(lock.op(), 1, true));
    SqlCommand.Take take = h.only(SqlCommand.Take.class);
    assertEquals(held(OTHER, 3, 9, true), take.basis(), "S3 pinned to the row read");
    assertEquals(4, take.epoch());
  }

  @Test
  void aNewVersionRestartsTheObservedWait() {
    h.step(new Input.Start());
    h.answerRead(held(OTHER, 3, 9, true));
    long first = h.now;
    h.now += 1500 * MS;
    h.step(new SqlInput.Woken(h.only(SqlCommand.Await.class).op(), 1, false));
    long second = h.now;
    h.answerRead(held(OTHER, 3, 10, true));
    h.now = first + OBSERVED_WAIT;
    h.step(new SqlInput.Woken(h.only(SqlCommand.Await.class).op(), 1, false));
    h.answerRead(held(OTHER, 3, 10, true));
    assertFalse(h.has(SqlCommand.Lock.class), "version 10 was first seen at " + second);
    assertEquals(Math.min(S, second + OBSERVED_WAIT - h.now), h.only(SqlCommand.Await.class).waitNanos());
  }

  @Test
  void aRowTheServerClockCallsUnexpiredIsNotTakenAfterTheObservedWait() {
    h.step(new Input.Start());
    h.answerRead(held(OTHER, 3, 9, false));
    h.now += OBSERVED_WAIT + S;
    h.step(new SqlInput.Woken(h.only(SqlCommand.Await.class).op(), 1, false));
    h.answerRead(held(OTHER, 3, 9, false));
    assertFalse(h.has(SqlCommand.Lock.class), "both conditions, never the server clock alone");
    assertEquals(100 * MS, h.only(SqlCommand.Await.class).waitNanos(), "re-read, without spinning");
  }

  @Test
  void beingWokenByGetLockNeverTakesByItself() {
    h.step(new Input.Start());
    h.answerRead(held(OTHER, 3, 9, false));
    SqlCommand.Await await = h.only(SqlCommand.Await.class);
    h.now += 50 * MS;
    h.step(new SqlInput.Woken(await.op(), 1, true));
    assertEquals(List.of(SqlCommand.Read.class), h.last.stream().map(Object::getClass).toList(),
        "woken: read the row, nothing else");
    long arrival = h.now;
    h.answerRead(held(OTHER, 3, 9, false));
    assertFalse(h.has(SqlCommand.Lock.class), "the row still names OTHER, unexpired");
    assertFalse(h.has(SqlCommand.Await.class), "the lock is ours now: a local timer, not a wait");
    assertEquals(arrival + S, h.timer(SqlTimer.POLL).atNanos());
    // The row moves on to another holder: the woken lock goes.
    h.fire(h.timer(SqlTimer.POLL));
    HolderToken third = new HolderToken("fedcba9876543210fedcba9876543210");
    h.answerRead(held(third, 4, 1, false));
    assertEquals(OTHER, h.only(SqlCommand.Unlock.class).holder());
    assertEquals(third, h.only(SqlCommand.Await.class).holder());
  }

  @Test
  void aFollowerWokenByAResignationFindsTheRowReleasedAndTakesItAtOnce() {
    h.step(new Input.Start());
    h.answerRead(held(OTHER, 3, 9, false));
    h.step(new SqlInput.Woken(h.only(SqlCommand.Await.class).op(), 1, true));
    h.answerRead(released(3, 10));
    assertEquals(OTHER, h.only(SqlCommand.Unlock.class).holder());
    assertTrue(h.indexOf(SqlCommand.Unlock.class) < h.indexOf(SqlCommand.Lock.class));
    h.step(new SqlInput.Locked(h.only(SqlCommand.Lock.class).op(), 1, true));
    SqlCommand.Take take = h.only(SqlCommand.Take.class);
    assertEquals(released(3, 10), take.basis());
    assertEquals(4, take.epoch());
  }

  @Test
  void aFailedTakeBecomesAnOrphanThatIsReleasedWhenARowShowsIt() {
    h.step(new Input.Start());
    h.answerRead(null);
    h.step(new SqlInput.Locked(h.only(SqlCommand.Lock.class).op(), 1, true));
    SqlCommand.Take take = h.only(SqlCommand.Take.class);
    h.step(new SqlInput.Failed(take.op(), "timed out after 500 ms"));
    assertEquals(ElectorState.FOLLOWER, h.m.role());
    assertEquals(List.of(Cause.STORE_UNAVAILABLE), h.published());
    h.fire(h.timer(SqlTimer.POLL));
    // The insert was applied after all: the row names our own attempt.
    h.step(new SqlInput.RowRead(h.only(SqlCommand.Read.class).op(), 2, new LeaseRow(take.holder(), "me", 1, 1, 2_000_000, false)));
    assertEquals(List.of(Cause.STORE_RECOVERED), h.published(), "our own attempt names no leader");
    assertNull(h.m.leader());
    SqlCommand.Release release = h.only(SqlCommand.Release.class);
    assertEquals(take.holder(), release.holder());
    assertEquals(1, release.epoch());
    assertTrue(h.indexOf(SqlCommand.Release.class) < h.indexOf(SqlCommand.Read.class));
    assertFalse(h.has(SqlCommand.Await.class), "never wait on our own orphan");
    SqlCommand.Read read = h.only(SqlCommand.Read.class);
    h.step(new SqlInput.Released(release.op(), 2, true));
    h.step(new SqlInput.RowRead(read.op(), 2, new LeaseRow(null, "me", 1, 2, 2_000_000, true)));
    SqlCommand.Lock again = h.only(SqlCommand.Lock.class);
    assertNotEquals(take.holder(), again.holder(), "a fresh token for every attempt");
  }

  @Test
  void anOrphanIsForgottenOnceTheRowItWasBasedOnHasMovedOn() {
    h.step(new Input.Start());
    h.answerRead(released(5, 7));
    h.step(new SqlInput.Locked(h.only(SqlCommand.Lock.class).op(), 1, true));
    SqlCommand.Take take = h.only(SqlCommand.Take.class);
    h.step(new SqlInput.Failed(take.op(), "connection reset"));
    assertTrue(h.m.orphans.contains(take.holder()));
    h.fire(h.timer(SqlTimer.POLL));
    h.answerRead(released(5, 7));
    assertTrue(h.m.orphans.contains(take.holder()), "its S3 could still apply to version 7");
    h.step(new SqlInput.Failed(h.only(SqlCommand.Lock.class).op(), "reset again"));
    h.fire(h.timer(SqlTimer.POLL));
    h.answerRead(held(OTHER, 6, 8, false));
    assertFalse(h.m.orphans.contains(take.holder()), "version 8: that S3 can never apply");
    assertFalse(h.has(SqlCommand.Release.class));
  }

  @Test
  void aTakeAnsweredAfterItsDeadlineIsGivenBackAndNeverLeads() {
    h.step(new Input.Start());
    h.answerRead(null);
    h.step(new SqlInput.Locked(h.only(SqlCommand.Lock.class).op(), 1, true));
    SqlCommand.Take take = h.only(SqlCommand.Take.class);
    h.now += WINDOW;
    h.step(new SqlInput.Taken(take.op(), 1, true));
    assertEquals(ElectorState.FOLLOWER, h.m.role());
    assertEquals(List.of(), h.published());
    assertTrue(h.indexOf(SqlCommand.Release.class) < h.indexOf(SqlCommand.Unlock.class));
    assertEquals(take.holder(), h.only(SqlCommand.Release.class).holder());
  }

  @Test
  void aLostTakeLetsItsLockGoAndReadsAgainAtOnce() {
    h.step(new Input.Start());
    h.answerRead(null);
    h.step(new SqlInput.Locked(h.only(SqlCommand.Lock.class).op(), 1, true));
    SqlCommand.Take take = h.only(SqlCommand.Take.class);
    h.step(new SqlInput.Taken(take.op(), 1, false));
    assertEquals(ElectorState.FOLLOWER, h.m.role());
    assertEquals(take.holder(), h.only(SqlCommand.Unlock.class).holder());
    assertTrue(h.has(SqlCommand.Read.class));
    assertFalse(h.has(SqlCommand.Release.class));
  }

  @Test
  void aFailedRenewalEndsTheTermWithStoreUnavailableAndRecoveryFollows() {
    h.elect();
    HolderToken me = h.holder();
    h.fire(h.timer(SqlTimer.RENEW));
    h.step(new SqlInput.Failed(h.only(SqlCommand.Renew.class).op(), "timed out after 500 ms"));
    assertEquals(ElectorState.FOLLOWER, h.m.role());
    Command.Publish loss = h.only(Command.Publish.class);
    assertEquals(Cause.STORE_UNAVAILABLE, loss.cause());
    assertEquals(ElectorState.MASTER, loss.from());
    assertEquals(ElectorState.FOLLOWER, loss.to());
    assertEquals(me, h.only(SqlCommand.Release.class).holder(), "S5 on a new session, best effort");
    SqlCommand.Release release = h.only(SqlCommand.Release.class);
    h.step(new SqlInput.Released(release.op(), 2, true));
    assertEquals(List.of(Cause.STORE_RECOVERED), h.published());
    assertFalse(h.m.orphans.contains(me));
  }

  @Test
  void aRenewalThatChangesNoRowStepsDownAtOnceAndTheReadNamesTheSuccessor() {
    h.elect();
    HolderToken me = h.holder();
    h.fire(h.timer(SqlTimer.RENEW));
    h.step(new SqlInput.Renewed(h.only(SqlCommand.Renew.class).op(), 1, false));
    assertEquals(ElectorState.FOLLOWER, h.m.role(), "isLeader() is false before the cause is known");
    assertEquals(List.of(), h.published(), "listeners hear once the cause is known");
    assertEquals(me, h.only(SqlCommand.Unlock.class).holder());
    assertFalse(h.has(SqlCommand.Release.class), "the row is not ours: no S5");
    h.answerRead(held(OTHER, 7, 30, false));
    assertEquals(List.of(Cause.KEY_TAKEN), h.published(), "the successor comes in the loss, no LEADER_CHANGED");
    assertEquals(7, h.only(Command.Publish.class).leader().fencingToken());
    assertEquals(OTHER, h.only(SqlCommand.Await.class).holder());
  }

  @Test
  void aDeletedRowIsReportedAsKeyDeleted() {
    h.elect();
    h.fire(h.timer(SqlTimer.RENEW));
    h.step(new SqlInput.Renewed(h.only(SqlCommand.Renew.class).op(), 1, false));
    h.answerRead(null);
    assertEquals(List.of(Cause.KEY_DELETED), h.published());
    SqlCommand.Lock lock = h.only(SqlCommand.Lock.class);
    h.step(new SqlInput.Locked(lock.op(), 1, true));
    assertEquals(2, h.only(SqlCommand.Take.class).epoch(), "1 + the largest epoch this process has seen");
  }

  @Test
  void anAnswerFromAnotherSessionEndsTheTerm() {
    h.elect();
    h.fire(h.timer(SqlTimer.RENEW));
    h.step(new SqlInput.Renewed(h.only(SqlCommand.Renew.class).op(), 2, true));
    assertEquals(ElectorState.FOLLOWER, h.m.role());
    assertEquals(List.of(Cause.STORE_UNAVAILABLE), h.published());
  }

  @Test
  void closeReleasesTheRowThenTheLockAndPublishesClosed() {
    h.elect();
    HolderToken me = h.holder();
    h.step(new Input.Close());
    assertEquals(ElectorState.STOPPED, h.m.role());
    Command.Publish closed = h.only(Command.Publish.class);
    assertEquals(Cause.CLOSED, closed.cause());
    assertEquals(ElectorState.MASTER, closed.from());
    assertEquals(me, h.only(SqlCommand.Release.class).holder());
    assertTrue(h.indexOf(SqlCommand.Release.class) < h.indexOf(SqlCommand.Unlock.class));
    h.step(new SqlInput.Released(h.only(SqlCommand.Release.class).op(), 1, true));
    assertEquals(List.of(), h.last, "a stopped machine does nothing more");
  }

  @Test
  void closingAWaitingFollowerEndsItsWaitFirst() {
    h.step(new Input.Start());
    h.answerRead(held(OTHER, 3, 9, false));
    h.step(new Input.Close());
    assertEquals(0, h.indexOf(SqlCommand.EndWait.class));
    assertEquals(List.of(Cause.CLOSED), h.published());
  }

  @Test
  void closingACandidateReleasesItsAttempt() {
    h.step(new Input.Start());
    h.answerRead(null);
    h.step(new SqlInput.Locked(h.only(SqlCommand.Lock.class).op(), 1, true));
    SqlCommand.Take take = h.only(SqlCommand.Take.class);
    h.step(new Input.Close());
    assertEquals(take.holder(), h.only(SqlCommand.Release.class).holder(), "harmless if the take did not apply");
    assertTrue(h.indexOf(SqlCommand.Release.class) < h.indexOf(SqlCommand.Unlock.class));
  }

  @Test
  void aLateAnswerIsIgnored() {
    h.step(new Input.Start());
    SqlCommand.Read read = h.only(SqlCommand.Read.class);
    h.step(new SqlInput.Failed(read.op(), "timed out after 500 ms"));
    assertEquals(List.of(Cause.STORE_UNAVAILABLE), h.published());
    h.step(new SqlInput.RowRead(read.op(), 1, null));
    assertEquals(List.of(), h.last, "the read was already answered (by its timeout)");
    assertEquals(ElectorState.FOLLOWER, h.m.role());
  }

  @Test
  void errorsAreReportedOncePerOutageAndRetriedWithBackoff() {
    h.step(new Input.Start());
    h.step(new SqlInput.Failed(h.only(SqlCommand.Read.class).op(), "Access denied"));
    assertEquals(List.of(Cause.STORE_UNAVAILABLE), h.published());
    for (int i = 0; i < 5; i++) {
      Command.SetTimer poll = h.timer(SqlTimer.POLL);
      assertTrue(poll.atNanos() - h.now <= S, "backoff capped at 1 s");
      h.fire(poll);
      h.step(new SqlInput.Failed(h.only(SqlCommand.Read.class).op(), "Access denied"));
      assertEquals(List.of(), h.published(), "not per retry");
    }
    assertEquals(ElectorState.FOLLOWER, h.m.role());
  }
}
