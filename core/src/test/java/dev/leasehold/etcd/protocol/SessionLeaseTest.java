package dev.leasehold.etcd.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import java.util.SplittableRandom;
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
  private final MachineSteps d = new MachineSteps(m);




  private long grant() {
    long sentAt = d.now;
    d.step(new Input.Start());
    EtcdCommand.GrantLease g = d.only(EtcdCommand.GrantLease.class);
    d.now += 5 * MS;
    d.step(new EtcdInput.LeaseGranted(g.op(), LEASE, 5));
    return sentAt;
  }

  @Test
  void aGrantTellsEveryElectionTheLeaseAndItsDeadlineFromTheGrantsSendTime() {
    long sentAt = grant();
    SessionCommand.Renewed r = d.only(SessionCommand.Renewed.class);
    assertEquals(LEASE, r.leaseId());
    assertEquals(CONFIG.deadline(sentAt, 5), r.deadline());
    assertEquals(ElectorState.MASTER, m.role());
    assertEquals(sentAt + CONFIG.masterRenewIntervalNanos(5), d.timer(TimerKind.RENEW).atNanos());
  }

  @Test
  void oneKeepAliveAndOneConfirmingReadRenewItForEveryElection() {
    grant();
    Command.SetTimer renew = d.timer(TimerKind.RENEW);
    d.now = renew.atNanos();
    long sentAt = d.now;
    d.step(new Input.TimerFired(renew.timer(), renew.seq()));
    EtcdCommand.KeepAlive k = d.only(EtcdCommand.KeepAlive.class);
    d.now += 3 * MS;
    d.step(new EtcdInput.KeepAliveAcked(k.op(), 5, 7));
    EtcdCommand.ConfirmRead c = d.only(EtcdCommand.ConfirmRead.class);
    assertEquals(1, d.last.size(), "one read, nothing per election: " + d.last);
    d.now += 2 * MS;
    d.step(new EtcdInput.ConfirmRead(c.op(), null, 500, 7));
    SessionCommand.Renewed r = d.only(SessionCommand.Renewed.class);
    assertEquals(CONFIG.deadline(sentAt, 5), r.deadline());
    assertEquals(500, r.revision(), "the revision the watch must reach");
  }

  @Test
  void anAckFromAnotherRaftTermConfirmsNothing() {
    grant();
    Command.SetTimer renew = d.timer(TimerKind.RENEW);
    d.now = renew.atNanos();
    d.step(new Input.TimerFired(renew.timer(), renew.seq()));
    d.step(new EtcdInput.KeepAliveAcked(d.only(EtcdCommand.KeepAlive.class).op(), 5, 7));
    d.step(new EtcdInput.ConfirmRead(d.only(EtcdCommand.ConfirmRead.class).op(), null, 500, 8));
    assertFalse(d.last.stream().anyMatch(SessionCommand.Renewed.class::isInstance), d.last.toString());
  }

  @Test
  void theDeadlinePassingEndsEveryTermRevokesTheLeaseAndGrantsAnew() {
    grant();
    Command.SetTimer deadline = d.timer(TimerKind.DEADLINE);
    d.now = deadline.atNanos();
    d.step(new Input.TimerFired(deadline.timer(), deadline.seq()));
    SessionCommand.Ended e = d.only(SessionCommand.Ended.class);
    assertEquals(Cause.LEASE_EXPIRED_LOCALLY, e.cause());
    assertEquals(LEASE, d.only(Command.Release.class).leaseId());
    d.only(EtcdCommand.GrantLease.class);
    assertTrue(d.last.indexOf(e) < d.last.indexOf(d.only(Command.Release.class)), "elections first: " + d.last);
    assertEquals(ElectorState.CANDIDATE, m.role());
  }

  @Test
  void etcdSayingTheLeaseIsGoneEndsItWithoutARevoke() {
    grant();
    Command.SetTimer renew = d.timer(TimerKind.RENEW);
    d.now = renew.atNanos();
    d.step(new Input.TimerFired(renew.timer(), renew.seq()));
    d.step(new EtcdInput.KeepAliveFailed(d.only(EtcdCommand.KeepAlive.class).op(), true, "lease not found"));
    assertEquals(Cause.LEASE_REVOKED, d.only(SessionCommand.Ended.class).cause());
    assertFalse(d.last.stream().anyMatch(Command.Release.class::isInstance));
    d.only(EtcdCommand.GrantLease.class);
  }

  @Test
  void closeEndsTheElectionsAndRevokesAndALateGrantIsRevokedToo() {
    d.step(new Input.Start());
    EtcdCommand.GrantLease g = d.only(EtcdCommand.GrantLease.class);
    d.step(new Input.Close());
    assertTrue(d.last.stream().noneMatch(SessionCommand.Ended.class::isInstance), "no lease yet: " + d.last);
    d.step(new EtcdInput.LeaseGranted(g.op(), LEASE, 5));
    assertEquals(LEASE, d.only(Command.Release.class).leaseId());
    assertEquals(ElectorState.STOPPED, m.role());
  }

  @Test
  void closeWithALeaseTellsClosedThenRevokes() {
    grant();
    d.step(new Input.Close());
    assertEquals(Cause.CLOSED, d.only(SessionCommand.Ended.class).cause());
    assertEquals(LEASE, d.only(Command.Release.class).leaseId());
  }

  @Test
  void renewalsThatKeepFailingAreReportedOnceAndTheNextConfirmedRenewalEndsTheReport() {
    grant();
    for (int i = 1; i <= 4; i++) {
      d.fire(d.timer(TimerKind.RENEW));
      d.step(new EtcdInput.KeepAliveFailed(d.only(EtcdCommand.KeepAlive.class).op(), false, "etcd unreachable " + i));
      if (i == 3) {
        assertEquals("etcd unreachable 3", d.only(SessionCommand.Unavailable.class).reason(),
            "reported once it lasts, as a single election reports it");
      } else {
        assertFalse(d.has(SessionCommand.Unavailable.class), i + ": " + d.last);
      }
    }
    d.fire(d.timer(TimerKind.RENEW));
    d.step(new EtcdInput.KeepAliveAcked(d.only(EtcdCommand.KeepAlive.class).op(), 5, 7));
    assertFalse(d.has(SessionCommand.Recovered.class), "an ack alone is no progress");
    d.step(new EtcdInput.ConfirmRead(d.only(EtcdCommand.ConfirmRead.class).op(), null, 500, 7));
    d.only(SessionCommand.Renewed.class);
    d.only(SessionCommand.Recovered.class);
  }

  @Test
  void aConfigurationErrorIsReportedAtOnce() {
    d.step(new Input.Start());
    EtcdCommand.GrantLease g = d.only(EtcdCommand.GrantLease.class);
    String refused = "configuration error: permission denied: user 'elector' may not grant leases";
    d.step(new EtcdInput.GrantFailed(g.op(), refused));
    assertEquals(refused, d.only(SessionCommand.Unavailable.class).reason());
  }
}
