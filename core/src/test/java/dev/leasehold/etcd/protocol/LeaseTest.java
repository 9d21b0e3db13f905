package dev.leasehold.etcd.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.runtime.Command;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The lease on its own: no election, a holder that records what it is told. */
class LeaseTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;
  // TTL 3 s, margin 300 ms, drift 1 %: window = 3 s × 0.99 − 0.3 s = 2.67 s. The error backoff
  // starts at 1 s, so a standby retry (backoff) and a MASTER retry (TTL/24 = 125 ms) differ.
  private static final ProtocolConfig CONFIG =
      new ProtocolConfig("me", 3, 300 * MS, 0.01, 1 * S, 1 * S, 4 * S, 200 * MS, 3 * S, true);
  private static final long WINDOW = 2_670 * MS;
  // A MASTER renews as late as leaves 2 s of its window: at TTL 3 s, 670 ms (TTL/6 to TTL/2).
  private static final long MASTER_EVERY = WINDOW - 2 * S;
  private static final KeyRecord KEY = new KeyRecord("me", 77, 11, 11);

  private final Effects fx = new Effects(CONFIG, new SplittableRandom(1));
  private final Lease lease = new Lease(CONFIG, fx);
  private final Recorder holder = new Recorder();
  private long now = 1_000 * S;
  private List<Command> last = List.of();

  /** Recorder is a holder that notes each call and keeps the lease unless told otherwise. */
  private static final class Recorder implements Lease.Holder {
    final List<String> calls = new ArrayList<>();
    final List<KeyRecord> keys = new ArrayList<>();
    boolean keep = true;

    @Override
    public void answered(long now) {
      calls.add("answered");
    }

    @Override
    public void failed(long now) {
      calls.add("failed");
    }

    @Override
    public void gone(long now) {
      calls.add("gone");
    }

    @Override
    public boolean keyRead(KeyRecord key, long revision, long now) {
      calls.add("keyRead");
      keys.add(key);
      return keep;
    }

    @Override
    public void renewed(KeyRecord key, long revision, long now) {
      calls.add("renewed");
    }

    @Override
    public void expired(long now) {
      calls.add("expired");
    }
  }

  private List<Command> act(Runnable r) {
    fx.begin();
    r.run();
    last = fx.commands();
    return last;
  }

  private <T extends Command> List<T> all(Class<T> type) {
    return last.stream().filter(type::isInstance).map(type::cast).collect(Collectors.toList());
  }

  private <T extends Command> T only(Class<T> type) {
    List<T> found = all(type);
    assertEquals(1, found.size(), () -> "expected one " + type.getSimpleName() + " in " + last);
    return found.get(0);
  }

  private Command.SetTimer timer(TimerKind kind) {
    List<Command.SetTimer> found =
        all(Command.SetTimer.class).stream().filter(t -> t.timer() == kind).collect(Collectors.toList());
    assertEquals(1, found.size(), () -> "expected one " + kind + " timer in " + last);
    return found.get(0);
  }

  private boolean arms(TimerKind kind) {
    return all(Command.SetTimer.class).stream().anyMatch(t -> t.timer() == kind);
  }

  /** Grants a standby lease sent at the current time and granted 5 ms later; returns the send time. */
  private long held() {
    long sent = now;
    act(() -> lease.grantStandby(sent));
    long op = only(EtcdCommand.GrantLease.class).op();
    now += 5 * MS;
    act(() -> lease.hold(new EtcdInput.LeaseGranted(op, 77, 3), now));
    return sent;
  }

  /** Sends a keep-alive now and returns its op. */
  private long keepAlive() {
    act(() -> lease.renew(now));
    return only(EtcdCommand.KeepAlive.class).op();
  }

  /** Acks the keep-alive {@code op} in raft term {@code term}; returns the confirm read's op. */
  private long ack(long op, long term) {
    act(() -> lease.on(new EtcdInput.KeepAliveAcked(op, 3, term), now, holder));
    return only(EtcdCommand.ConfirmRead.class).op();
  }

  private void read(long op, long term) {
    act(() -> lease.on(new EtcdInput.ConfirmRead(op, KEY, 12, term), now, holder));
  }

  @Test
  void aGrantedLeaseIsValidFromTheGrantsSendTime() {
    long sent = held();
    assertTrue(lease.isHeld());
    assertEquals(77, lease.id());
    assertEquals(3, lease.ttlSeconds());
    assertEquals(sent + WINDOW, lease.deadline());
    assertEquals(sent + WINDOW, timer(TimerKind.DEADLINE).atNanos());
  }

  @Test
  void aConfirmedRenewalCountsFromTheKeepAlivesSendTimeNotTheAckOrTheRead() {
    held();
    now += 1 * S;
    long sentAt = now;
    long ka = keepAlive();
    now += 400 * MS; // a slow ack
    long read = ack(ka, 5);
    now += 300 * MS; // and a slow read
    read(read, 5);
    assertEquals(sentAt + WINDOW, lease.deadline());
    assertEquals(sentAt + WINDOW, timer(TimerKind.DEADLINE).atNanos());
    assertEquals(List.of("answered", "answered", "keyRead", "renewed"), holder.calls);
  }

  @Test
  void theConfirmReadGoesOutOnlyAfterTheAck() {
    held();
    now += 1 * S;
    act(() -> lease.renew(now));
    assertEquals(1, last.size(), () -> "only the keep-alive: " + last);
    assertTrue(last.get(0) instanceof EtcdCommand.KeepAlive);
    act(() -> lease.renew(now));
    assertTrue(last.isEmpty(), "one renewal at a time");
  }

  @Test
  void aReadInAnotherRaftTermDoesNotExtendTheDeadline() {
    long granted = held();
    now += 1 * S;
    long ka = keepAlive();
    // A deposed etcd leader (term 4) acked; the read is served by the term-5 leader.
    long read = ack(ka, 4);
    read(read, 5);
    assertEquals(granted + WINDOW, lease.deadline());
    assertFalse(arms(TimerKind.DEADLINE));
    assertFalse(holder.calls.contains("renewed"));
    long retry = timer(TimerKind.RENEW).atNanos() - now;
    assertTrue(retry >= 500 * MS && retry <= 1 * S, "a standby lease retries after the error backoff: " + retry);
  }

  @Test
  void aMastersUnconfirmedRenewalIsRetriedWithinAQuarterOfItsInterval() {
    held();
    act(() -> lease.lead(now));
    now += 500 * MS;
    long ka = keepAlive();
    long read = ack(ka, 4);
    read(read, 5);
    assertEquals(now + MASTER_EVERY / 4, timer(TimerKind.RENEW).atNanos(), "min(backoffInitial 1 s, interval/4)");
  }

  @Test
  void aStandbyLeaseRenewsEveryThreeFifthsOfTheTtlAndALeadingOneLeavingTwoSecondsOfItsWindow() {
    long granted = held();
    assertEquals(granted + 9 * S / 5, timer(TimerKind.RENEW).atNanos(), "standby: 3·TTL/5 after the grant");
    assertTrue(lease.hasRenewalLeft(granted + WINDOW - S / 2), "TTL/6 left");
    assertFalse(lease.hasRenewalLeft(granted + WINDOW - S / 2 + 1));

    now = granted + 9 * S / 5;
    long sent = now;
    read(ack(keepAlive(), 5), 5);
    assertEquals(sent + 9 * S / 5, timer(TimerKind.RENEW).atNanos(), "standby: 3·TTL/5 after a renewal");

    now += 10 * MS;
    act(() -> lease.lead(now));
    assertEquals(sent + MASTER_EVERY, timer(TimerKind.RENEW).atNanos(), "leading: window - 2 s from the same send");
    assertEquals(sent + WINDOW, timer(TimerKind.DEADLINE).atNanos());

    now = sent + MASTER_EVERY;
    long sent2 = now;
    read(ack(keepAlive(), 5), 5);
    assertEquals(sent2 + MASTER_EVERY, timer(TimerKind.RENEW).atNanos(), "leading: window - 2 s after a renewal");
    assertEquals(sent2 + WINDOW, lease.deadline());
  }

  @Test
  void leadLeavesTheRenewTimerToTheRenewalInFlight() {
    held();
    now += 1 * S;
    long ka = keepAlive();
    act(() -> lease.lead(now));
    assertTrue(arms(TimerKind.DEADLINE));
    assertFalse(arms(TimerKind.RENEW), () -> "the renewal in flight re-arms RENEW: " + last);
    read(ack(ka, 5), 5);
    assertTrue(arms(TimerKind.RENEW));
  }

  @Test
  void theKeyTheReadSawGoesToTheHolderWhichMayEndTheRenewal() {
    long granted = held();
    now += 1 * S;
    long read = ack(keepAlive(), 5);
    holder.keep = false;
    read(read, 5);
    assertEquals(List.of(KEY), holder.keys);
    assertEquals(List.of("answered", "answered", "keyRead"), holder.calls);
    assertTrue(last.isEmpty(), () -> "nothing after the holder let go: " + last);
    assertEquals(granted + WINDOW, lease.deadline());
  }

  @Test
  void aKeepAliveReportingTheLeaseGoneTellsTheHolderAndSendsNoRead() {
    held();
    now += 1 * S;
    long ka = keepAlive();
    act(() -> lease.on(new EtcdInput.KeepAliveAcked(ka, 0, 5), now, holder));
    assertEquals(List.of("gone"), holder.calls);
    assertTrue(last.isEmpty());

    now += 1 * S;
    long ka2 = keepAlive();
    act(() -> lease.on(new EtcdInput.KeepAliveFailed(ka2, true, "lease not found"), now, holder));
    assertEquals(List.of("gone", "gone"), holder.calls);
  }

  @Test
  void aFailedKeepAliveIsRetried() {
    held();
    now += 1 * S;
    long ka = keepAlive();
    act(() -> lease.on(new EtcdInput.KeepAliveFailed(ka, false, "timed out"), now, holder));
    assertEquals(List.of("failed"), holder.calls);
    assertTrue(timer(TimerKind.RENEW).atNanos() > now);
  }

  @Test
  void repliesToAnotherOperationOrAfterReleaseAreIgnored() {
    held();
    now += 1 * S;
    long ka = keepAlive();
    act(() -> lease.on(new EtcdInput.KeepAliveAcked(ka + 100, 3, 5), now, holder));
    assertTrue(last.isEmpty());
    act(lease::release);
    assertEquals(new Command.Release(77, 3), only(Command.Release.class));
    assertFalse(lease.isHeld());
    assertEquals(Long.MIN_VALUE, lease.deadline());
    assertEquals(2, all(Command.CancelTimer.class).size(), () -> "RENEW and DEADLINE: " + last);
    act(() -> lease.on(new EtcdInput.KeepAliveAcked(ka, 3, 5), now, holder));
    assertTrue(last.isEmpty());
    assertTrue(holder.calls.isEmpty());
  }

  @Test
  void aCampaignAdoptsTheStandbyGrantInFlight() {
    long sent = now;
    act(() -> lease.grantStandby(sent));
    long op = only(EtcdCommand.GrantLease.class).op();
    now += 2 * MS;
    act(() -> lease.grantForCampaign(now));
    assertTrue(last.isEmpty(), "no second grant");
    assertTrue(lease.awaitsGrant(op, true));
    assertFalse(lease.awaitsGrant(op, false));
    act(() -> lease.hold(new EtcdInput.LeaseGranted(op, 78, 3), now));
    assertEquals(sent + WINDOW, lease.deadline(), "the deadline still counts from the grant's send time");
  }

  @Test
  void aFailedStandbyGrantIsNotRetriedBeforeItsBackoff() {
    act(() -> lease.grantStandby(now));
    long op = only(EtcdCommand.GrantLease.class).op();
    assertFalse(lease.mayGrantStandby(now), "one grant at a time");
    act(() -> lease.standbyGrantFailed(now + 700 * MS));
    assertFalse(lease.awaitsGrant(op, false));
    assertFalse(lease.mayGrantStandby(now + 699 * MS));
    assertTrue(lease.mayGrantStandby(now + 700 * MS));
  }

  @Test
  void theDeadlineTimerReArmsUntilTheDeadlineAndThenTellsTheHolder() {
    long granted = held();
    now += 1 * S;
    act(() -> lease.onDeadline(now, holder));
    assertEquals(granted + WINDOW, timer(TimerKind.DEADLINE).atNanos());
    assertTrue(holder.calls.isEmpty());
    act(() -> lease.onDeadline(granted + WINDOW, holder));
    assertEquals(List.of("expired"), holder.calls);
  }

  @Test
  void aLaterRenewalWithAShorterTtlNeverMovesTheDeadlineBack() {
    held();
    now += 1 * S;
    long sent = now;
    read(ack(keepAlive(), 5), 5);
    assertEquals(sent + WINDOW, lease.deadline());
    now += 10 * MS;
    long ka = keepAlive();
    act(() -> lease.on(new EtcdInput.KeepAliveAcked(ka, 1, 5), now, holder));
    read(only(EtcdCommand.ConfirmRead.class).op(), 5);
    assertEquals(sent + WINDOW, lease.deadline());
    assertFalse(arms(TimerKind.DEADLINE));
    assertTrue(arms(TimerKind.RENEW));
  }
}
