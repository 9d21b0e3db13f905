package dev.leasehold.spec.sim;

import dev.leasehold.Guarantee;
import dev.leasehold.etcd.protocol.EtcdCommand;
import dev.leasehold.etcd.protocol.EtcdInput;
import dev.leasehold.etcd.protocol.KeyRecord;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.StoreCall;
import dev.leasehold.runtime.StorePort;
import dev.leasehold.spec.sim.SimNetwork.Member;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * SimPort is one candidate's {@link StorePort} onto the simulated etcd, doing what
 * {@code EtcdPort} does with jetcd: each {@link EtcdCommand} becomes one request over
 * {@link SimNetwork}, answered by {@link SimEtcd} with the {@link EtcdInput} that
 * {@code EtcdPort} would map the reply to. A lost request or reply leaves the stage
 * incomplete; the runtime's RPC timeout is what the candidate then sees. Replies complete the
 * stage at their own simulation event, as a jetcd thread would.
 *
 * <p>Two of {@link Mutation}'s driver faults live here: {@link Mutation#ACK_ALONE_CONFIRMS}
 * answers the confirming read itself, and {@link ObservedMachine.ShadowAnswer} hands back a
 * keep-alive reply that {@link Mutation#RECEIVE_TIME_DEADLINE} obtained earlier.
 *
 * <p>After a crash ({@link #abandon()}) the port sends nothing and completes nothing.
 * Not thread-safe: the simulation's one thread calls it.
 */
final class SimPort implements StorePort {
  private final Proc p;
  private final SimNetwork net;
  private final SimEtcd etcd;
  private final Checker checker;
  private SimNetwork.Watcher watcher;
  private boolean dead;

  SimPort(Proc p, SimNetwork net, SimEtcd etcd, Checker checker) {
    this.p = p;
    this.net = net;
    this.etcd = etcd;
    this.checker = checker;
  }

  @Override
  public Guarantee guarantee() {
    return Guarantee.DISTRIBUTED;
  }

  @Override
  public void open() {
    // Nothing to connect: the simulated network is always there.
  }

  @Override
  public CompletionStage<? extends Input> call(StoreCall call) {
    CompletableFuture<Input> reply = new CompletableFuture<>();
    if (dead) {
      return reply;
    }
    if (call instanceof EtcdCommand.Poll q) {
      send(mem -> etcd.poll(mem, q.op(), q.participants()), reply);
    } else if (call instanceof EtcdCommand.GrantLease g) {
      send(mem -> etcd.grant(mem, p, g.op(), g.ttlSeconds()), reply);
    } else if (call instanceof EtcdCommand.Campaign k) {
      send(mem -> etcd.campaign(mem, p, k.op(), k.leaseId(), k.enlist()), reply);
    } else if (call instanceof EtcdCommand.Rank r) {
      send(mem -> etcd.rank(mem, p, r.op(), r.leaseId()), reply);
    } else if (call instanceof EtcdCommand.Enlist e) {
      send(mem -> etcd.enlist(mem, p, e.op(), e.leaseId()), reply);
    } else if (call instanceof EtcdCommand.Handover h) {
      send(mem -> etcd.handover(mem, p, h.op(), h.token(), h.leaseId(), h.successor()), reply);
    } else if (call instanceof EtcdCommand.KeepAlive k) {
      send(mem -> etcd.keepAlive(mem, k.op(), k.leaseId()), reply);
    } else if (call instanceof EtcdCommand.ConfirmRead q) {
      if (p.mutation == Mutation.ACK_ALONE_CONFIRMS) {
        // A MASTER is told its key is still its own; a standby follower's read (revision 0) is
        // ignored as a poll. Either way the ack's term "confirms" the renewal.
        long token = p.termToken();
        KeyRecord mine = token > 0 ? new KeyRecord(p.ec.candidateId(), p.m.leaseId(), token, token) : null;
        reply.complete(new EtcdInput.ConfirmRead(q.op(), mine, 0, p.lastAckTerm));
      } else {
        send(mem -> etcd.confirm(mem, p, q.op(), q.rankOf()), reply);
      }
    } else if (call instanceof EtcdCommand.ProbeLease q) {
      send(mem -> etcd.probe(mem, q.op(), q.leaseId()), reply);
    } else if (call instanceof ObservedMachine.ShadowKeepAlive s) {
      send(mem -> {
        Object r = etcd.keepAlive(mem, -1, s.leaseId());
        return r == null ? null : new ObservedMachine.ShadowReply((Input) r);
      }, reply);
    } else if (call instanceof ObservedMachine.ShadowAnswer a) {
      reply.complete(a.answer());
    } else {
      throw new IllegalArgumentException("not an etcd call: " + call);
    }
    return reply;
  }

  private void send(Function<Member, Object> serve, CompletableFuture<Input> reply) {
    net.rpc(p.slot, p.rpcTimeout, serve, r -> {
      if (!dead) {
        reply.complete((Input) r);
      }
    });
  }

  @Override
  public void send(Command command, Consumer<Input> inbox) {
    if (dead) {
      return;
    }
    if (command instanceof EtcdCommand.Watch w) {
      if (watcher != null) {
        net.closeWatcher(watcher);
      }
      watcher = net.watch(p.slot, p.rpcTimeout, w.watchId(), w.fromRevision(), w.queue(), inbox);
    } else if (command instanceof EtcdCommand.CancelWatch w) {
      if (watcher != null && watcher.id == w.watchId()) {
        net.closeWatcher(watcher);
        watcher = null;
      }
    } else {
      throw new IllegalArgumentException("not an etcd command: " + command);
    }
  }

  @Override
  public CompletionStage<?> release(long leaseId) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    if (dead) {
      return done;
    }
    checker.releaseAttempted(p, leaseId);
    net.rpc(p.slot, p.rpcTimeout, mem -> etcd.revoke(mem, p, leaseId), r -> {
      if (dead) {
        return;
      }
      if (Boolean.FALSE.equals(r)) {
        done.completeExceptionally(new IllegalStateException("etcdserver: no leader"));
      } else {
        done.complete(null); // revoked, or etcd says not found
      }
    });
    return done;
  }

  @Override
  public String describe(Throwable failure) {
    Throwable t = failure;
    while (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    return t.getMessage() != null ? t.getMessage() : t.toString();
  }

  @Override
  public void close() {
    if (watcher != null) {
      net.closeWatcher(watcher);
      watcher = null;
    }
  }

  /** watcher is the open watch stream, or null. */
  SimNetwork.Watcher watcher() {
    return watcher;
  }

  /** abandon is a crash: the stream closes, and nothing is sent or completed from now on. */
  void abandon() {
    dead = true;
    close();
  }
}
