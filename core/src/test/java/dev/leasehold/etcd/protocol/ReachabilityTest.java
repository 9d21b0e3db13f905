package dev.leasehold.etcd.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.Reachability;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * What the machine reports of the store's reachability (PROTOCOL.md §9): an outage once it lasts
 * or at once when the store refuses for a configuration error, recovery only when the store gives
 * the elector what it needs, and a MASTER's deadline that waits for neither.
 */
class ReachabilityTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;
  // TTL 3 s, margin 300 ms, poll 1 s, backoff 100 ms .. 1 s, no standby lease.
  private static final ProtocolConfig CONFIG =
      new ProtocolConfig("me", 3, 300 * MS, 0.01, 1 * S, 100 * MS, 1 * S, 200 * MS, 3 * S, false);
  private static final String REFUSED =
      "configuration error: permission denied: user 'reader' may not write /k";
  private static final long LEASE = 77;

  private final ElectionMachine m = new ElectionMachine(CONFIG, new SplittableRandom(1));
  private final List<Cause> told = new ArrayList<>();
  private long now = 1_000 * S;
  private List<Command> last;

  private void step(Input in) {
    last = m.step(in, now);
    last.stream()
        .filter(Command.Publish.class::isInstance)
        .forEach(c -> told.add(((Command.Publish) c).cause()));
  }

  private <T extends Command> T only(Class<T> type) {
    List<T> found = last.stream().filter(type::isInstance).map(type::cast).collect(Collectors.toList());
    assertEquals(1, found.size(), () -> "expected one " + type.getSimpleName() + " in " + last);
    return found.get(0);
  }

  private Command.SetTimer timer(TimerKind kind) {
    return last.stream()
        .filter(c -> c instanceof Command.SetTimer t && t.timer() == kind)
        .map(Command.SetTimer.class::cast)
        .reduce((a, b) -> b)
        .orElseThrow(() -> new AssertionError("no " + kind + " timer in " + last));
  }

  /** firePoll waits for the POLL timer and returns how long after now it was armed. */
  private long firePoll() {
    Command.SetTimer t = timer(TimerKind.POLL);
    long delay = t.atNanos() - now;
    now = t.atNanos();
    step(new Input.TimerFired(TimerKind.POLL, t.seq()));
    return delay;
  }

  /** campaignThatFails reads the key absent, is granted a lease and sees its campaign fail. */
  private void campaignThatFails(String reason) {
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), null, 10));
    step(new EtcdInput.LeaseGranted(only(EtcdCommand.GrantLease.class).op(), LEASE, 3));
    step(new EtcdInput.CampaignFailed(only(EtcdCommand.Campaign.class).op(), reason));
    assertEquals(LEASE, only(Command.Release.class).leaseId(), "nothing is held");
  }

  @Test
  void aReadOnlyUserIsReportedOnceAsRefusedAndRetriedAtTheMaximumBackoff() {
    step(new Input.Start());
    for (int i = 0; i < 20; i++) {
      campaignThatFails(REFUSED);
      assertEquals(ElectorState.FOLLOWER, m.role());
      long delay = firePoll();
      assertTrue(delay >= CONFIG.backoffMaxNanos() / 2 && delay <= CONFIG.backoffMaxNanos(),
          "retried at the maximum backoff (with jitter), but after " + delay / MS + " ms");
    }
    // Its reads and lease grants succeeded every time; none of them is a recovery.
    assertEquals(List.of(Cause.STORE_UNAVAILABLE), told);
    assertTrue(m.isUnavailable());
    // The operator grants write: the next campaign is answered.
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), null, 10));
    step(new EtcdInput.LeaseGranted(only(EtcdCommand.GrantLease.class).op(), LEASE, 3));
    step(new EtcdInput.CampaignWon(only(EtcdCommand.Campaign.class).op(), 11));
    assertEquals(List.of(Cause.STORE_UNAVAILABLE, Cause.STORE_RECOVERED, Cause.ELECTED), told);
  }

  @Test
  void aColdClientsFirstCallTimingOutIsNotReported() {
    step(new Input.Start());
    step(new EtcdInput.PollFailed(only(EtcdCommand.Poll.class).op(), "timed out after 1000 ms"));
    firePoll();
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), null, 10));
    step(new EtcdInput.LeaseGranted(only(EtcdCommand.GrantLease.class).op(), LEASE, 3));
    step(new EtcdInput.CampaignWon(only(EtcdCommand.Campaign.class).op(), 11));
    assertEquals(List.of(Cause.ELECTED), told);
  }

  @Test
  void anOutageIsReportedOnceItLastsThreeFailedCallsAndEndsWhenTheLeaderIsRead() {
    step(new Input.Start());
    for (int i = 1; i <= Reachability.LASTING; i++) {
      step(new EtcdInput.PollFailed(only(EtcdCommand.Poll.class).op(), "unreachable"));
      assertEquals(i < Reachability.LASTING ? List.of() : List.of(Cause.STORE_UNAVAILABLE), told);
      firePoll();
    }
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), new KeyRecord("x", 5, 3, 3), 4));
    assertEquals(List.of(Cause.STORE_UNAVAILABLE, Cause.STORE_RECOVERED, Cause.LEADER_CHANGED), told);
  }

  @Test
  void writesFailingWhileReadsWorkAreOneOutageWithAGrowingBackoff() {
    step(new Input.Start());
    List<Long> delays = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      campaignThatFails("timed out after 1000 ms");
      delays.add(firePoll());
    }
    assertEquals(List.of(Cause.STORE_UNAVAILABLE), told, "reads succeeding in between recover nothing");
    assertTrue(delays.get(9) >= CONFIG.backoffMaxNanos() / 2, "backoff reached its cap: " + delays);
    assertTrue(delays.get(0) <= CONFIG.backoffInitialNanos(), "and began at the initial one: " + delays);
  }

  @Test
  void aMasterStepsDownAtItsDeadlineWhateverIsReported() {
    step(new Input.Start());
    long grantSent = now;
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), null, 10));
    step(new EtcdInput.LeaseGranted(only(EtcdCommand.GrantLease.class).op(), LEASE, 3));
    step(new EtcdInput.CampaignWon(only(EtcdCommand.Campaign.class).op(), 11));
    Command.SetTimer deadline = timer(TimerKind.DEADLINE);
    assertEquals(grantSent + 2_670 * MS, deadline.atNanos());
    // One renewal times out; the outage is not reported yet, and the deadline does not wait.
    Command.SetTimer renew = timer(TimerKind.RENEW);
    now = renew.atNanos();
    step(new Input.TimerFired(TimerKind.RENEW, renew.seq()));
    now += 1 * S;
    step(new EtcdInput.KeepAliveFailed(only(EtcdCommand.KeepAlive.class).op(), false, "timed out"));
    now = deadline.atNanos();
    step(new Input.TimerFired(TimerKind.DEADLINE, deadline.seq()));
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals(List.of(Cause.ELECTED, Cause.LEASE_EXPIRED_LOCALLY), told);
  }

  @Test
  void aConfirmedRenewalEndsAMastersOutage() {
    step(new Input.Start());
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), null, 10));
    step(new EtcdInput.LeaseGranted(only(EtcdCommand.GrantLease.class).op(), LEASE, 3));
    step(new EtcdInput.CampaignWon(only(EtcdCommand.Campaign.class).op(), 11));
    for (int i = 0; i < Reachability.LASTING; i++) {
      Command.SetTimer renew = timer(TimerKind.RENEW);
      now = renew.atNanos();
      step(new Input.TimerFired(TimerKind.RENEW, renew.seq()));
      step(new EtcdInput.KeepAliveFailed(only(EtcdCommand.KeepAlive.class).op(), false, "unreachable"));
    }
    Command.SetTimer renew = timer(TimerKind.RENEW);
    now = renew.atNanos();
    step(new Input.TimerFired(TimerKind.RENEW, renew.seq()));
    step(new EtcdInput.KeepAliveAcked(only(EtcdCommand.KeepAlive.class).op(), 3, 5));
    assertEquals(List.of(Cause.ELECTED, Cause.STORE_UNAVAILABLE), told, "an ack alone recovers nothing");
    step(new EtcdInput.ConfirmRead(
        only(EtcdCommand.ConfirmRead.class).op(), new KeyRecord("me", LEASE, 11, 11), 12, 5));
    assertEquals(List.of(Cause.ELECTED, Cause.STORE_UNAVAILABLE, Cause.STORE_RECOVERED), told);
    assertEquals(ElectorState.MASTER, m.role());
  }
}
