package dev.leasehold.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorConfig;
import dev.leasehold.Guarantee;
import dev.leasehold.etcd.protocol.ElectionMachine;
import dev.leasehold.etcd.protocol.EtcdCommand;
import dev.leasehold.etcd.protocol.EtcdInput;
import dev.leasehold.etcd.protocol.ProtocolConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A lease grant whose reply comes after its call timed out still creates a lease in etcd; the
 * runtime must hand the late reply to the machine, which revokes it, or the lease lives on
 * until etcd expires it (a raft proposal nobody asked for). Driven on virtual time through the
 * real runtime, {@link Calls}, {@link Releases} and the etcd machine.
 */
class LateGrantTest {
  private static final ElectorConfig CONFIG =
      ElectorConfig.builder().electionKey("/k").candidateId("me").leaseTtl(Duration.ofSeconds(5)).build();

  /** FakeStore keeps each call's reply for the test to complete, and records releases. */
  private static final class FakeStore implements StorePort {
    final List<StoreCall> calls = new ArrayList<>();
    final List<CompletableFuture<Input>> replies = new ArrayList<>();
    final List<Long> released = new ArrayList<>();

    @Override
    public Guarantee guarantee() {
      return Guarantee.DISTRIBUTED;
    }

    @Override
    public void open() {}

    @Override
    public CompletionStage<? extends Input> call(StoreCall call) {
      CompletableFuture<Input> f = new CompletableFuture<>();
      calls.add(call);
      replies.add(f);
      return f;
    }

    @Override
    public void send(Command command, Consumer<Input> inbox) {}

    @Override
    public CompletionStage<?> release(long leaseId) {
      released.add(leaseId);
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public String describe(Throwable failure) {
      return String.valueOf(failure);
    }

    @Override
    public void close() {}

    <T extends StoreCall> int last(Class<T> type) {
      for (int i = calls.size() - 1; i >= 0; i--) {
        if (type.isInstance(calls.get(i))) {
          return i;
        }
      }
      throw new AssertionError("no " + type.getSimpleName() + " in " + calls);
    }
  }

  @Test
  void aGrantAnsweredAfterItsTimeoutIsRevoked() {
    ManualScheduler s = new ManualScheduler();
    FakeStore store = new FakeStore();
    ElectorRuntime rt =
        new ElectorRuntime(
            CONFIG, new ElectionMachine(ProtocolConfig.from(CONFIG), new SplittableRandom(1)), store, s, "t");
    rt.start();
    s.runFor(0);

    // A candidate that starts makes the cold campaign: a grant first, which waits longer than
    // the RPC timeout, and etcd is slower still.
    int grant = store.last(EtcdCommand.GrantLease.class);
    EtcdCommand.GrantLease g = (EtcdCommand.GrantLease) store.calls.get(grant);
    long rpc = CONFIG.rpcTimeout().toNanos();
    assertTrue(g.timeoutNanos(rpc) > rpc, "the cold campaign's grant waits longer: " + g);
    s.runFor(rpc + 1);
    assertTrue(store.calls.stream().noneMatch(c -> c instanceof EtcdCommand.Poll),
        "no read while the cold grant may still come: " + store.calls);
    s.runFor(g.timeoutNanos(rpc));
    assertTrue(store.released.isEmpty(), "nothing to release before the reply: " + store.released);

    // The grant was applied after all; its reply arrives after the timeout.
    store.replies.get(grant).complete(new EtcdInput.LeaseGranted(g.op(), 0x99, 5));
    s.runFor(0);
    assertEquals(List.of(0x99L), store.released, "the late grant's lease is revoked");
  }

  @Test
  void closeWaitsForAGrantThatTimedOutAndRevokesItsLease() {
    ManualScheduler s = new ManualScheduler();
    FakeStore store = new FakeStore();
    ElectorRuntime rt =
        new ElectorRuntime(
            CONFIG, new ElectionMachine(ProtocolConfig.from(CONFIG), new SplittableRandom(1)), store, s, "t");
    rt.start();
    s.runFor(0);
    int grant = store.last(EtcdCommand.GrantLease.class);
    long grantOp = ((EtcdCommand.GrantLease) store.calls.get(grant)).op();

    // close() begins while the cold grant is unanswered: it is given up, its answer awaited.
    var closed = rt.closeAsync().toCompletableFuture();
    s.runFor(CONFIG.rpcTimeout().toNanos() / 2);
    assertTrue(!closed.isDone(), "close waits for the unanswered grant");
    store.replies.get(grant).complete(new EtcdInput.LeaseGranted(grantOp, 0x77, 5));
    s.runFor(0);
    assertEquals(List.of(0x77L), store.released, "the late grant's lease is revoked before the loop stops");
    assertTrue(closed.isDone(), "close ends once the late grant is released");
  }

  @Test
  void closeWaitsForAnUnansweredCallAtMostOneRpcTimeout() {
    ManualScheduler s = new ManualScheduler();
    FakeStore store = new FakeStore();
    ElectorRuntime rt =
        new ElectorRuntime(
            CONFIG, new ElectionMachine(ProtocolConfig.from(CONFIG), new SplittableRandom(1)), store, s, "t");
    rt.start();
    s.runFor(0);
    // The cold grant, which may wait longer than the RPC timeout, is in flight and never answered.
    int grant = store.last(EtcdCommand.GrantLease.class);
    long grantOp = ((EtcdCommand.GrantLease) store.calls.get(grant)).op();
    var closed = rt.closeAsync().toCompletableFuture();
    s.runFor(CONFIG.rpcTimeout().toNanos() + 1);
    assertTrue(closed.isDone(), "a reply that never comes delays close by one RPC timeout at most");

    // It comes after all, once nothing waits for it: dropped, its lease left to expire.
    store.replies.get(grant).complete(new EtcdInput.LeaseGranted(grantOp, 0x55, 5));
    s.runFor(0);
    assertTrue(store.released.isEmpty(), "nothing is sent after the close: " + store.released);
  }
}
