package dev.leasehold.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The session's lease (PROTOCOL.md §11): the single election's renewal, news for every election. */
class SessionLeaseTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;
  // TTL 5 s, margin 300 ms, drift 1 %: window 4.65 s; the MASTER's cadence renews after 2.65 s.
  private static final ProtocolConfig CONFIG =
      new ProtocolConfig("me", 5, 300 * MS, 0.01, 1 * S, 100 * MS, 1 * S, 200 * MS, 3 * S, false);
  private static final long LEASE = 77;

  private final SessionLease m = new SessionLease(CONFIG, new SplittableRandom(1));
  private long now = 1_000 * S;
  private List<Command> last;

  private List<Command> step(Input in) {
    last = m.step(in, now);
    return last;
  }

  private <T extends Command> T only(Class<T> type) {
    List<T> found = last.stream().filter(type::isInstance).map(type::cast).collect(Collectors.toList());
    assertEquals(1, found.size(), () -> "expected one " + type.getSimpleName() + " in " + last);
    return found.get(0);
  }

  private Command.SetTimer timer(TimerKind kind) {
    return last.stream().filter(c -> c instanceof Command.SetTimer t && t.timer() == kind)
        .map(Command.SetTimer.class::cast).reduce((a, b) -> b)
        .orElseThrow(() -> new AssertionError("no " + kind + " timer in " + last));
  }

  private long grant() {
    long sentAt = now;
    step(new Input.Start());
    EtcdCommand.GrantLease g = only(EtcdCommand.GrantLease.class);
    now += 5 * MS;
    step(new EtcdInput.LeaseGranted(g.op(), LEASE, 5));
    return sentAt;
  }

  @Test
  void aGrantTellsEveryElectionTheLeaseAndItsDeadlineFromTheGrantsSendTime() {
    long sentAt = grant();
    SessionCommand.Renewed r = only(SessionCommand.Renewed.class);
    assertEquals(LEASE, r.leaseId());
    assertEquals(CONFIG.deadline(sentAt, 5), r.deadline());
    assertEquals(ElectorState.MASTER, m.role());
    assertEquals(sentAt + CONFIG.masterRenewIntervalNanos(5), timer(TimerKind.RENEW).atNanos());
  }

  @Test
  void oneKeepAliveAndOneConfirmingReadRenewItForEveryElection() {
    grant();
    Command.SetTimer renew = timer(TimerKind.RENEW);
    now = renew.atNanos();
    long sentAt = now;
    step(new Input.TimerFired(renew.timer(), renew.seq()));
    EtcdCommand.KeepAlive k = only(EtcdCommand.KeepAlive.class);
    now += 3 * MS;
    step(new EtcdInput.KeepAliveAcked(k.op(), 5, 7));
    EtcdCommand.ConfirmRead c = only(EtcdCommand.ConfirmRead.class);
    assertEquals(1, last.size(), "one read, nothing per election: " + last);
    now += 2 * MS;
    step(new EtcdInput.ConfirmRead(c.op(), null, 500, 7));
    SessionCommand.Renewed r = only(SessionCommand.Renewed.class);
    assertEquals(CONFIG.deadline(sentAt, 5), r.deadline());
    assertEquals(500, r.revision(), "the revision the watch must reach");
  }

  @Test
  void anAckFromAnotherRaftTermConfirmsNothing() {
    grant();
    Command.SetTimer renew = timer(TimerKind.RENEW);
    now = renew.atNanos();
    step(new Input.TimerFired(renew.timer(), renew.seq()));
    step(new EtcdInput.KeepAliveAcked(only(EtcdCommand.KeepAlive.class).op(), 5, 7));
    step(new EtcdInput.ConfirmRead(only(EtcdCommand.ConfirmRead.class).op(), null, 500, 8));
    assertFalse(last.stream().anyMatch(SessionCommand.Renewed.class::isInstance), last.toString());
  }

  @Test
  void theDeadlinePassingEndsEveryTermRevokesTheLeaseAndGrantsAnew() {
    grant();
    Command.SetTimer deadline = timer(TimerKind.DEADLINE);
    now = deadline.atNanos();
    step(new Input.TimerFired(deadline.timer(), deadline.seq()));
    SessionCommand.Ended e = only(SessionCommand.Ended.class);
    assertEquals(Cause.LEASE_EXPIRED_LOCALLY, e.cause());
    assertEquals(LEASE, only(Command.Release.class).leaseId());
    only(EtcdCommand.GrantLease.class);
    assertTrue(last.indexOf(e) < last.indexOf(only(Command.Release.class)), "elections first: " + last);
    assertEquals(ElectorState.CANDIDATE, m.role());
  }

  @Test
  void etcdSayingTheLeaseIsGoneEndsItWithoutARevoke() {
    grant();
    Command.SetTimer renew = timer(TimerKind.RENEW);
    now = renew.atNanos();
    step(new Input.TimerFired(renew.timer(), renew.seq()));
    step(new EtcdInput.KeepAliveFailed(only(EtcdCommand.KeepAlive.class).op(), true, "lease not found"));
    assertEquals(Cause.LEASE_REVOKED, only(SessionCommand.Ended.class).cause());
    assertFalse(last.stream().anyMatch(Command.Release.class::isInstance));
    only(EtcdCommand.GrantLease.class);
  }

  @Test
  void closeEndsTheElectionsAndRevokesAndALateGrantIsRevokedToo() {
    step(new Input.Start());
    EtcdCommand.GrantLease g = only(EtcdCommand.GrantLease.class);
    step(new Input.Close());
    assertTrue(last.stream().noneMatch(SessionCommand.Ended.class::isInstance), "no lease yet: " + last);
    step(new EtcdInput.LeaseGranted(g.op(), LEASE, 5));
    assertEquals(LEASE, only(Command.Release.class).leaseId());
    assertEquals(ElectorState.STOPPED, m.role());
  }

  @Test
  void closeWithALeaseTellsClosedThenRevokes() {
    grant();
    step(new Input.Close());
    assertEquals(Cause.CLOSED, only(SessionCommand.Ended.class).cause());
    assertEquals(LEASE, only(Command.Release.class).leaseId());
  }
}
