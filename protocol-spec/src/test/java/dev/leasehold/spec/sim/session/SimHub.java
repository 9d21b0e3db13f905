package dev.leasehold.spec.sim.session;

import dev.leasehold.Guarantee;
import dev.leasehold.etcd.protocol.EtcdCommand;
import dev.leasehold.etcd.protocol.EtcdInput;
import dev.leasehold.etcd.protocol.KeyRecord;
import dev.leasehold.etcd.protocol.SessionCommand;
import dev.leasehold.etcd.protocol.SessionFleet;
import dev.leasehold.etcd.protocol.SessionInput;
import dev.leasehold.etcd.protocol.SessionMember;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.Scheduler;
import dev.leasehold.runtime.StoreCall;
import dev.leasehold.runtime.StorePort;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * SimHub is one process's session hub on the simulated etcd, doing what {@code SessionHub} and
 * the session's {@code EtcdPort} do with jetcd: the lease's calls (grant, keep-alive,
 * confirming read, probe, revoke), the lease's news for every joined election, the later
 * deletes, and one watch on the prefix with its progress check after each confirmed renewal
 * and its re-read of the prefix once (re)created. The calls are not hedged or gated here.
 *
 * <p>After a crash ({@link #abandon()}) nothing is sent or completed. Not thread-safe: the
 * simulation's one thread calls it.
 */
final class SimHub implements StorePort {
  /** Mutation is a change to the hub's rules, to show the simulation catches it. */
  enum Mutation {
    NONE,
    /** The revoke goes out at once, not behind the elections' news of the lease's end (the bug this simulation found). */
    REVOKE_AT_ONCE,
    /** No progress check after renewals: a stalled watch is never restarted. */
    NO_WATCH_CHECK
  }

  private final SessionSim sim;
  private final SessionProc p;
  private final String prefix;
  private final Scheduler loop;
  private final Executor elections;
  private final long rpcTimeout;
  private final long backoff;
  private final Map<String, Consumer<Input>> inboxes = new LinkedHashMap<>();
  private final Map<String, Long> laterDeletes = new LinkedHashMap<>();
  private SessionInput.Live live;
  private SessionInput.Unavailable outage;
  private boolean listed;
  private SessionNet.Stream watcher;
  private long watchGeneration;
  private long watchRevision;
  private long checkRevision;
  private int watchFailures;
  private boolean closed;
  boolean dead;
  // Spreading (weight 0: off), as SessionHub: the fleet's view on the lease's loop.
  private final int weight;
  private final SessionFleet fleet;
  private long registeredLease;
  private boolean registering;

  SimHub(SessionSim sim, SessionProc p, String prefix, Scheduler loop, Executor elections, long rpcTimeout,
      long backoff, int weight) {
    this.sim = sim;
    this.weight = weight;
    this.fleet = new SessionFleet(prefix, inboxes, (key, token) -> {
      sim.count("moved key with no election deleted");
      fencedDelete(-1, key, token);
    });
    this.elections = elections;
    this.p = p;
    this.prefix = prefix;
    this.loop = loop;
    this.rpcTimeout = rpcTimeout;
    this.backoff = backoff;
  }

  /** rpc is one call with the client's deadline; {@code map} turns etcd's answer (null: none) into the reply. */
  private <T> CompletableFuture<T> rpc(Function<SessionEtcd, Object> serve, Function<Object, T> map) {
    CompletableFuture<T> f = new CompletableFuture<>();
    if (dead) {
      return f;
    }
    sim.net.rpc(p.slot, rpcTimeout, () -> serve.apply(sim.etcd), r -> {
      if (!dead) {
        f.complete(map.apply(r));
      }
    });
    return f;
  }

  private static Input or(Object r, Input timedOut) {
    return r == null ? timedOut : (Input) r;
  }

  // ---- what the elections' ports use ----

  CompletionStage<Input> campaign(long op, String key, long leaseId) {
    return rpc(e -> e.campaign(op, key, p.id, leaseId),
        r -> or(r, new EtcdInput.CampaignFailed(op, "deadline exceeded")));
  }

  CompletionStage<Input> fencedDelete(long op, String key, long token) {
    return rpc(e -> e.fencedDelete(op, key, token), r -> or(r, new SessionInput.DeleteFailed(op, "deadline exceeded")));
  }

  CompletionStage<Input> transfer(long op, String key, long token, SessionMember to) {
    sim.count("move sent");
    return rpc(e -> e.transfer(op, key, token, SessionMember.key(prefix, to.leaseId()), to),
        r -> or(r, new SessionInput.TransferFailed(op, "deadline exceeded")));
  }

  void join(String key, Consumer<Input> inbox) {
    inboxes.put(key, inbox);
    if (weight > 0) {
      inbox.accept(new SessionInput.Preferred(false));
    }
    if (live != null) {
      inbox.accept(live);
    }
    if (outage != null) {
      inbox.accept(outage);
    }
    if (listed) {
      rpc(e -> e.read(key, true), r -> (SessionEtcd.Read) r).thenAccept(read -> {
        if (read != null) {
          inbox.accept(new SessionInput.KeySeen(read.keys().get(key), read.revision()));
        }
      });
    }
  }

  void leave(String key) {
    inboxes.remove(key);
    if (weight > 0) {
      loop.execute(() -> fleet.forget(key));
    }
  }

  void deleteLater(String key, long token) {
    laterDeletes.put(key, token);
  }

  private void retryLaterDeletes() {
    if (!laterDeletes.isEmpty()) {
      sim.count("later deletes retried");
    }
    new HashMap<>(laterDeletes).forEach((key, token) -> fencedDelete(-1, key, token).thenAccept(r -> {
      if (r instanceof SessionInput.Deleted) {
        laterDeletes.remove(key, token);
      }
    }));
  }

  // ---- StorePort of the session's lease ----

  @Override
  public Guarantee guarantee() {
    return Guarantee.DISTRIBUTED;
  }

  @Override
  public void open() {
    loop.execute(this::startWatch);
  }

  @Override
  public CompletionStage<? extends Input> call(StoreCall call) {
    if (call instanceof EtcdCommand.GrantLease g) {
      return rpc(e -> e.grant(g.op(), g.ttlSeconds()), r -> or(r, new EtcdInput.GrantFailed(g.op(), "deadline exceeded")));
    } else if (call instanceof EtcdCommand.KeepAlive k) {
      return rpc(e -> e.keepAlive(k.op(), k.leaseId()),
          r -> or(r, new EtcdInput.KeepAliveFailed(k.op(), false, "deadline exceeded")));
    } else if (call instanceof EtcdCommand.ConfirmRead c) {
      return rpc(e -> e.confirm(c.op(), prefix), r -> or(r, new EtcdInput.ConfirmFailed(c.op(), "deadline exceeded")));
    } else if (call instanceof EtcdCommand.ProbeLease q) {
      return rpc(e -> e.probe(q.op(), q.leaseId()), r -> or(r, new EtcdInput.LeaseProbed(q.op(), false, false)));
    }
    throw new IllegalArgumentException("not a session lease call: " + call);
  }

  @Override
  public void send(Command command, Consumer<Input> inbox) {
    if (dead) {
      return;
    }
    if (command instanceof SessionCommand.Renewed r) {
      live = new SessionInput.Live(r.leaseId(), r.deadline(), r.renewalSentAt());
      inboxes.values().forEach(i -> i.accept(live));
      retryLaterDeletes();
      if (r.revision() > 0) {
        checkWatch(r.revision());
      }
      if (weight > 0) {
        spread(r.leaseId());
      }
    } else if (command instanceof SessionCommand.Ended e) {
      live = null;
      laterDeletes.clear();
      if (weight > 0) {
        fleet.ended();
      }
      SessionInput.Ended ended = new SessionInput.Ended(e.leaseId(), e.cause());
      inboxes.values().forEach(i -> i.accept(ended));
    } else if (command instanceof SessionCommand.Unavailable u) {
      outage = new SessionInput.Unavailable(u.reason());
      inboxes.values().forEach(i -> i.accept(outage));
    } else if (command instanceof SessionCommand.Recovered) {
      outage = null;
      inboxes.values().forEach(i -> i.accept(new SessionInput.Recovered()));
    } else {
      throw new IllegalArgumentException("not a session lease command: " + command);
    }
  }

  @Override
  public CompletionStage<?> release(long leaseId) {
    // As SessionHub: the revoke goes out behind the elections' news of the lease's end.
    CompletableFuture<Void> done = new CompletableFuture<>();
    if (sim.hubMutation == Mutation.REVOKE_AT_ONCE) {
      revoke(leaseId, done);
      return done;
    }
    Runnable onLeaseLoop = () -> {
      try {
        loop.execute(() -> revoke(leaseId, done));
      } catch (RejectedExecutionException stopped) {
        revoke(leaseId, done);
      }
    };
    try {
      elections.execute(onLeaseLoop);
    } catch (RejectedExecutionException stopped) {
      onLeaseLoop.run();
    }
    return done;
  }

  private void revoke(long leaseId, CompletableFuture<Void> done) {
    rpc(e -> e.revoke(leaseId, p.name), r -> r).thenAccept(r -> {
      if (r == null || Boolean.FALSE.equals(r)) {
        done.completeExceptionally(new IllegalStateException(r == null ? "deadline exceeded" : "etcdserver: no leader"));
      } else {
        done.complete(null);
      }
    });
  }

  @Override
  public String describe(Throwable failure) {
    Throwable t = failure.getCause() != null ? failure.getCause() : failure;
    return String.valueOf(t.getMessage());
  }

  @Override
  public void close() {
    closed = true;
    stopWatch();
  }

  /** abandon is a crash: the stream closes, and nothing is sent or completed from now on. */
  void abandon() {
    dead = true;
    stopWatch();
  }

  SessionNet.Stream watcher() {
    return watcher;
  }

  // ---- the watch (SessionHub's rules) ----

  private void startWatch() {
    if (closed || dead) {
      return;
    }
    long generation = ++watchGeneration;
    watcher = sim.net.watch(p.slot, prefix, () -> p.paused, new SessionNet.Sink() {
      @Override
      public void created(long revision) {
        watchRevision = Math.max(watchRevision, revision);
        loop.execute(() -> {
          if (generation == watchGeneration) {
            watchFailures = 0;
            reread(generation);
          }
        });
      }

      @Override
      public void changed(SessionEtcd.Change c) {
        if (weight > 0) {
          loop.execute(() -> {
            fleet.changed(c.key(), c.record(), c.revision());
            fleet.settle();
          });
        }
        Consumer<Input> inbox = inboxes.get(c.key());
        if (inbox != null) {
          inbox.accept(new SessionInput.KeySeen(c.record(), c.revision()));
        }
        watchRevision = Math.max(watchRevision, c.revision());
      }

      @Override
      public void progress(long revision) {
        watchRevision = Math.max(watchRevision, revision);
      }

      @Override
      public void failed(String reason) {
        loop.execute(() -> {
          if (generation == watchGeneration && !closed) {
            watchFailures++;
            restartWatch(reason);
          }
        });
      }
    });
  }

  private void stopWatch() {
    if (watcher != null) {
      watcher.close();
      watcher = null;
    }
  }

  private void restartWatch(String why) {
    sim.note(p.name + ": session watch restarted: " + why);
    sim.count(why.startsWith("no progress") ? "watch restarted: silent" : "watch restarted: failed");
    stopWatch();
    watchGeneration++;
    long delay = Math.min(backoff * (1L << Math.min(watchFailures, 5)), 5 * SessionEtcd.S);
    loop.schedule(this::startWatch, watchFailures == 0 ? 0 : delay);
  }

  /** spread is SessionHub's: register as a member on a new lease, then let the fleet plan. */
  private void spread(long leaseId) {
    if (registeredLease != leaseId) {
      if (!registering) {
        registering = true;
        String value = SessionMember.value(weight, p.id);
        rpc(e -> e.put(SessionMember.key(prefix, leaseId), value, leaseId), r -> r).thenAccept(r -> loop.execute(() -> {
          registering = false;
          if (Boolean.TRUE.equals(r)) {
            registeredLease = leaseId;
            if (listed) {
              fleet.renewed(leaseId);
            }
          }
        }));
      }
    } else if (listed) {
      fleet.renewed(leaseId);
    }
  }

  private void checkWatch(long revision) {
    if (sim.hubMutation == Mutation.NO_WATCH_CHECK) {
      return;
    }
    if (watcher != null && checkRevision > 0 && watchRevision < checkRevision) {
      restartWatch("no progress to revision " + checkRevision + " (at " + watchRevision + ")");
    }
    checkRevision = revision;
    if (watcher != null) {
      watcher.requestProgress();
    }
  }

  private void reread(long generation) {
    if (weight > 0) {
      fleet.rereadStarted();
    }
    rpc(e -> e.read(prefix, false), r -> (SessionEtcd.Read) r).thenAccept(read -> loop.execute(() -> {
      if (generation != watchGeneration || closed) {
        return;
      }
      if (read == null) {
        loop.schedule(() -> reread(generation), backoff);
        return;
      }
      listed = true;
      Map<String, KeyRecord> present = read.keys();
      if (weight > 0) {
        fleet.reread(present, read.revision());
      }
      inboxes.forEach((key, inbox) -> inbox.accept(new SessionInput.KeySeen(present.get(key), read.revision())));
    }));
  }
}
