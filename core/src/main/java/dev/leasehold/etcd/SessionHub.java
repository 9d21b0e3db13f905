package dev.leasehold.etcd;

import dev.leasehold.Guarantee;
import dev.leasehold.etcd.protocol.KeyRecord;
import dev.leasehold.etcd.protocol.SessionCommand;
import dev.leasehold.etcd.protocol.SessionInput;
import dev.leasehold.etcd.protocol.SessionFleet;
import dev.leasehold.etcd.protocol.SessionMember;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.Scheduler;
import dev.leasehold.runtime.StoreCall;
import dev.leasehold.runtime.StorePort;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SessionHub is what a session's elections share (PROTOCOL.md §11): the client, the lease's
 * calls (an {@link EtcdPort} on the session's prefix, so grants, keep-alives and confirming
 * reads are the single election's, hedged), the lease's news for every election, and one
 * watch on the prefix whose events reach each election's inbox by key.
 *
 * <p>The silent watch is checked once per renewal for all elections: after each confirmed
 * renewal the watch is asked for a progress notification, and if it has not reached the
 * previous renewal's revision by then it is restarted, and the prefix re-read for every
 * election.
 *
 * <p>With spreading on (PROTOCOL.md §11.7), the session also registers itself as a member (a key
 * on its lease), keeps the fleet's view (the members and who holds each election key) from the
 * same watch, and after each confirmed renewal asks its elections above its target to move to
 * the members below theirs. While a health check holds it unhealthy, it deletes its member key
 * instead and asks every election it leads to move to the healthy members (yield when unhealthy).
 *
 * <p>Thread safety: the store-port methods, the watch's state and its callbacks' follow-ups
 * run on the lease's event loop; {@link #join}, {@link #leave} and {@link #deleteLater} come
 * from the elections' loop and touch only concurrent state (the inbox map, the later deletes,
 * the volatile lease news); watch callbacks run on jetcd's threads, where they only read the
 * inbox map and hand inputs over. An inbox is an election runtime's, safe from any thread.
 * {@link #healthChanged} may come from any thread and moves to the lease's loop; {@link
 * #unhealthy} reads volatile state only.
 */
final class SessionHub implements StorePort {
  private static final Logger log = LoggerFactory.getLogger(SessionHub.class);

  private final Client client;
  private final EtcdPort lease;
  private final String prefix;
  private final ByteSequence prefixBytes;
  private final Scheduler loop;
  // The elections' loop: a task queued on it runs after every input queued to them before it.
  private final Executor elections;
  private final long backoffNanos;
  private final ConcurrentHashMap<String, Consumer<Input>> inboxes = new ConcurrentHashMap<>();
  private final AtomicLong watchRevision = new AtomicLong();
  private final CallGate gate;
  private final long rpcTimeoutNanos;
  private volatile SessionInput.Live live;
  // The lease's outage report while it lasts, for elections that join meanwhile.
  private volatile SessionInput.Unavailable outage;
  // A read of the prefix was delivered to every election joined by then.
  private volatile boolean listed;

  // Added from the elections' loop, retried from the lease's.
  private final Map<ByteSequence, Long> laterDeletes = new ConcurrentHashMap<>();

  // Confined to the lease's loop.
  private Watch.Watcher watcher;
  private long watchGeneration;
  private long checkRevision;
  private int watchFailures;
  private boolean closed;

  // Spreading (weight 0: off): the fleet's view, confined to the lease's loop.
  private final int weight;
  private final String candidateId;
  private final SessionFleet fleet;
  // The lease whose member key this session wrote and has not deleted (0: none), and whether a
  // put or delete of it is at etcd: one at a time, each answered before the next is sent, so
  // that they apply in order.
  private long registeredLease;
  private boolean registering;
  // Yield when unhealthy (PROTOCOL.md §11.7): the health check's news while it holds this
  // session unhealthy (null: healthy), for elections that join meanwhile; and how many
  // elections it still leads, unhealthy, for want of a healthy member (SessionFleet.kept).
  private volatile Input.HealthChanged sick;
  private volatile int kept;

  /** CALLS_IN_FLIGHT bounds the elections' transactions at etcd at once (see CallGate). */
  static final int CALLS_IN_FLIGHT = 64;

  SessionHub(
      Client client, EtcdPort lease, String prefix, Scheduler loop, Executor elections, long backoffNanos,
      long rpcTimeoutNanos, int weight, String candidateId) {
    this.client = client;
    this.weight = weight;
    this.candidateId = candidateId;
    this.fleet = new SessionFleet(prefix, inboxes, (key, token) -> gated(() -> fencedDelete(bytes(key), token)));
    this.elections = elections;
    this.rpcTimeoutNanos = rpcTimeoutNanos;
    this.gate = new CallGate(CALLS_IN_FLIGHT, loop::nanoTime, rpcTimeoutNanos);
    this.lease = lease;
    this.prefix = prefix;
    this.prefixBytes = ByteSequence.from(prefix, StandardCharsets.UTF_8);
    this.loop = loop;
    this.backoffNanos = backoffNanos;
  }

  Client client() {
    return client;
  }

  /** elections is how many elections are joined now. */
  int elections() {
    return inboxes.size();
  }

  /**
   * join registers an election's inbox under its key and tells it the lease, if live. Its key
   * comes from the watch's next read of the prefix or, once the first one was delivered, from a
   * read of that key alone (gated like the elections' calls).
   */
  void join(String key, Consumer<Input> inbox) {
    inboxes.put(key, inbox);
    if (weight > 0) {
      // Spreading: no preference until the fleet's view tells one (SessionFleet.prefer).
      inbox.accept(new SessionInput.Preferred(false));
    }
    Input.HealthChanged h = sick;
    if (h != null) {
      inbox.accept(h); // before Live: no campaign in between
      // The view may have changed between the read and the accept, its news sent before this
      // inbox was listed: if so, tell the current one too (a repeated one changes nothing).
      Input.HealthChanged now = sick;
      if (now != h) {
        inbox.accept(now == null ? new Input.HealthChanged(true, "") : now);
      }
    }
    SessionInput.Live l = live;
    if (l != null) {
      inbox.accept(l);
    }
    SessionInput.Unavailable u = outage;
    if (u != null) {
      inbox.accept(u);
      // The outage may have ended between the read and the accept, its Recovered sent before
      // this inbox was listed: if so, end it here (a second Recovered is ignored).
      if (outage == null) {
        inbox.accept(new SessionInput.Recovered());
      }
    }
    if (listed) {
      ByteSequence k = ByteSequence.from(key, StandardCharsets.UTF_8);
      gate.submit(() -> EtcdRecords.read(client, Op.get(k, GetOption.DEFAULT)), 3 * rpcTimeoutNanos)
          .whenComplete((t, e) -> {
            if (e == null) {
              inbox.accept(new SessionInput.KeySeen(EtcdRecords.first(t.getGetResponses().get(0)), t.getHeader().getRevision()));
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

  /**
   * gated sends an election's call through the session's {@link CallGate}, so that at most
   * {@link #CALLS_IN_FLIGHT} of them are at etcd at once; one that waited {@code 3 × rpcTimeout}
   * is not sent, so that every call sent still has its own rpcTimeout before its election gives
   * up on it (SessionCommand's gated timeout is 4 × rpcTimeout).
   */
  CompletableFuture<TxnResponse> gated(java.util.function.Supplier<CompletableFuture<TxnResponse>> call) {
    return gate.submit(call, 3 * rpcTimeoutNanos);
  }

  /** fencedDelete is {@code Txn If ModRevision(key) == token Then Delete(key)} (PROTOCOL.md §11.2). */
  CompletableFuture<TxnResponse> fencedDelete(ByteSequence key, long token) {
    return client.getKVClient().txn()
        .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(token)))
        .Then(Op.delete(key, DeleteOption.DEFAULT))
        .commit();
  }

  /**
   * deleteLater keeps a closed election's failed fenced delete, sent again after each renewal
   * until etcd answers it; the lease's end drops them all (the keys went with it).
   */
  void deleteLater(ByteSequence key, long token) {
    laterDeletes.put(key, token);
  }

  /**
   * transfer is a move (PROTOCOL.md §11.7): {@code Txn If ModRevision(key) == token ∧
   * CreateRevision(M(to)) == to.createRevision Then Put(key, to's id, lease = to's lease)}.
   */
  CompletableFuture<TxnResponse> transfer(ByteSequence key, long token, SessionMember to) {
    ByteSequence member = bytes(SessionMember.key(prefix, to.leaseId()));
    return client.getKVClient().txn()
        .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(token)),
            new Cmp(member, Cmp.Op.EQUAL, CmpTarget.createRevision(to.createRevision())))
        .Then(Op.put(key, bytes(to.candidateId()), PutOption.builder().withLeaseId(to.leaseId()).build()))
        .commit();
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  private void retryLaterDeletes() {
    laterDeletes.forEach((key, token) -> gated(() -> fencedDelete(key, token)).whenComplete((r, e) -> {
      if (e == null) {
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
    lease.open();
    // open() runs on the thread calling start(); the watch's state is the loop's.
    loop.execute(this::startWatch);
  }

  @Override
  public CompletionStage<? extends Input> call(StoreCall call) {
    return lease.call(call);
  }

  @Override
  public void send(Command command, Consumer<Input> inbox) {
    if (command instanceof SessionCommand.Renewed r) {
      SessionInput.Live l = new SessionInput.Live(r.leaseId(), r.deadline(), r.renewalSentAt());
      live = l;
      inboxes.values().forEach(i -> i.accept(l));
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
      SessionInput.Unavailable news = new SessionInput.Unavailable(u.reason());
      outage = news;
      inboxes.values().forEach(i -> i.accept(news));
    } else if (command instanceof SessionCommand.Recovered) {
      outage = null;
      SessionInput.Recovered news = new SessionInput.Recovered();
      inboxes.values().forEach(i -> i.accept(news));
    } else {
      throw new IllegalArgumentException("not a session lease command: " + command);
    }
  }

  /**
   * release revokes the lease once every election has taken the news of its end: the lease
   * sends {@code Ended} to their inboxes before it releases, and a revoke that reached etcd
   * while an election's loop still had that news queued (thousands of elections' inputs
   * ahead of it) would free a key whose election still says {@code isLeader()}, before its
   * deadline on a close. So the revoke is sent from a task queued behind that news on the
   * elections' loop (PROTOCOL.md §11.4, S3), and then back on the lease's loop, which owns the
   * lease's store.
   */
  @Override
  public CompletionStage<?> release(long leaseId) {
    CompletableFuture<Void> taken = new CompletableFuture<>();
    Runnable onLeaseLoop = () -> {
      try {
        loop.execute(() -> taken.complete(null));
      } catch (RejectedExecutionException stopped) {
        taken.complete(null);
      }
    };
    try {
      elections.execute(onLeaseLoop);
    } catch (RejectedExecutionException stopped) {
      onLeaseLoop.run(); // the elections' loop has stopped: no election acts any more
    }
    return taken.thenCompose(v -> lease.release(leaseId));
  }

  @Override
  public String describe(Throwable failure) {
    return lease.describe(failure);
  }

  @Override
  public void close() {
    closed = true;
    stopWatch();
    lease.close();
  }

  // ---- the watch ----

  private void startWatch() {
    if (closed) {
      return;
    }
    long generation = ++watchGeneration;
    WatchOption option =
        WatchOption.builder().isPrefix(true).withCreateNotify(true).withRequireLeader(true).build();
    watcher =
        EndingWatcher.open(client, prefixBytes, option, Watch.listener(
            r -> onWatch(r, generation),
            e -> loop.execute(() -> watchFailed(generation, EtcdRecords.unwrap(e).toString()))));
  }

  private void stopWatch() {
    Watch.Watcher w = watcher;
    watcher = null;
    if (w != null) {
      try {
        w.close();
      } catch (RuntimeException e) {
        log.debug("closing the session watch on {} failed", prefix, e);
      }
    }
  }

  private void restartWatch(String why) {
    log.warn("session watch on {} restarted: {}", prefix, why);
    stopWatch();
    watchGeneration++;
    long delay = Math.min(backoffNanos * (1L << Math.min(watchFailures, 5)), TimeUnit.SECONDS.toNanos(5));
    loop.schedule(this::startWatch, watchFailures == 0 ? 0 : delay);
  }

  private void watchFailed(long generation, String reason) {
    if (generation == watchGeneration && !closed) {
      watchFailures++;
      restartWatch(reason);
    }
  }

  /** onWatch runs on a jetcd thread: events go to their elections' inboxes, in order. */
  private void onWatch(WatchResponse r, long generation) {
    if (r.isCreatedNotify()) {
      watchRevision.accumulateAndGet(r.getHeader().getRevision(), Math::max);
      loop.execute(() -> { if (generation == watchGeneration) { watchFailures = 0; reread(generation); } });
      return;
    }
    if (weight > 0 && !r.getEvents().isEmpty()) {
      List<WatchEvent> events = List.copyOf(r.getEvents());
      loop.execute(() -> {
        for (WatchEvent e : events) {
          KeyValue kv = e.getKeyValue();
          fleet.changed(kv.getKey().toString(StandardCharsets.UTF_8),
              e.getEventType() == WatchEvent.EventType.PUT ? EtcdRecords.record(kv) : null, kv.getModRevision());
        }
        fleet.settle();
      });
    }
    for (WatchEvent e : r.getEvents()) {
      KeyValue kv = e.getKeyValue();
      Consumer<Input> inbox = inboxes.get(kv.getKey().toString(StandardCharsets.UTF_8));
      if (inbox != null) {
        KeyRecord k = e.getEventType() == WatchEvent.EventType.PUT ? EtcdRecords.record(kv) : null;
        inbox.accept(new SessionInput.KeySeen(k, kv.getModRevision()));
      }
    }
    watchRevision.accumulateAndGet(r.getHeader().getRevision(), Math::max);
  }

  /**
   * checkWatch runs after each confirmed renewal: a watch that has not reached the previous
   * renewal's revision, although asked for progress since, is silent and restarted.
   */
  private void checkWatch(long revision) {
    if (watcher != null && checkRevision > 0 && watchRevision.get() < checkRevision) {
      restartWatch("no progress to revision " + checkRevision + " (at " + watchRevision.get() + ")");
    }
    checkRevision = revision;
    if (watcher != null) {
      client.getWatchClient().requestProgress();
    }
  }

  /** reread reads the prefix once the watch is created, so nothing between is missed. */
  private void reread(long generation) {
    if (weight > 0) {
      fleet.rereadStarted();
    }
    EtcdRecords.read(client, Op.get(prefixBytes, GetOption.builder().isPrefix(true).build()))
        .orTimeout(rpcTimeoutNanos, TimeUnit.NANOSECONDS) // a caller's client may set no deadline
        .whenComplete((t, e) -> loop.execute(() -> {
          if (generation != watchGeneration || closed) {
            return;
          }
          if (e != null) {
            log.debug("re-reading {} failed; retrying", prefix, e);
            loop.schedule(() -> reread(generation), backoffNanos);
            return;
          }
          Map<String, KeyRecord> present = new HashMap<>();
          long rev = t.getHeader().getRevision();
          for (KeyValue kv : t.getGetResponses().get(0).getKvs()) {
            present.put(kv.getKey().toString(StandardCharsets.UTF_8), EtcdRecords.record(kv));
          }
          listed = true;
          if (weight > 0) {
            fleet.reread(present, rev);
          }
          inboxes.forEach((key, inbox) -> inbox.accept(new SessionInput.KeySeen(present.get(key), rev)));
        }));
  }

  // ---- spreading (PROTOCOL.md §11.7), on the lease's loop ----

  /**
   * spread runs after each confirmed renewal: the session registers as a member on a new lease,
   * then its fleet plans (SessionFleet.renewed).
   */
  private void spread(long leaseId) {
    membership();
    if (sick != null) {
      if (listed) {
        fleet.renewed(leaseId); // hands its elections over, or counts those it keeps
        kept = fleet.kept();
      }
    } else if (registeredLease == leaseId && listed) {
      fleet.renewed(leaseId);
    }
  }

  /**
   * healthChanged takes the session's health check's news (its view after the threshold),
   * from any thread: unhealthy, the session deletes its member key (it leaves the fleet), tells
   * its elections (they stop campaigning) and, from the next renewal on, hands every election it
   * leads to the healthy members; healthy again, it writes its member key again and tells them.
   */
  void healthChanged(Input.HealthChanged news) {
    if (weight == 0) {
      return;
    }
    try {
      loop.execute(() -> changeHealth(news));
    } catch (RejectedExecutionException stopped) {
      // The session is closing: its lease's revoke takes the member key and every election's.
    }
  }

  // On the lease's loop.
  private void changeHealth(Input.HealthChanged news) {
    if (closed || (sick == null) == news.healthy()) {
      return;
    }
    sick = news.healthy() ? null : news;
    if (news.healthy()) {
      kept = 0;
    }
    fleet.healthChanged(news.healthy());
    inboxes.values().forEach(i -> i.accept(news));
    membership();
  }

  /**
   * unhealthy says why the health check holds this spreading session unhealthy and what it does
   * about it, or null while it is healthy.
   */
  String unhealthy() {
    Input.HealthChanged h = sick;
    if (h == null) {
      return null;
    }
    int k = kept;
    return h.reason() + (k > 0
        ? "; out of the fleet, still leading " + k + " election" + (k == 1 ? "" : "s")
            + ": no healthy member to hand them to"
        : "; out of the fleet: its elections move to the healthy members, and do not campaign");
  }

  /**
   * membership brings the member key in line with the health check, one call at a time: healthy,
   * the key of the current lease is written; unhealthy, it is deleted. A failed call is tried
   * again at the next renewal.
   */
  private void membership() {
    SessionInput.Live l = live;
    if (registering || closed || l == null) {
      return;
    }
    if (sick == null && registeredLease != l.leaseId()) {
      register(l.leaseId());
    } else if (sick != null && registeredLease == l.leaseId()) {
      leaveFleet(l.leaseId());
    }
  }

  private void leaveFleet(long leaseId) {
    registering = true;
    ByteSequence key = bytes(SessionMember.key(prefix, leaseId));
    client.getKVClient().delete(key)
        .orTimeout(rpcTimeoutNanos, TimeUnit.NANOSECONDS)
        .whenComplete((r, e) -> loop.execute(() -> {
          registering = false;
          if (e == null) {
            registeredLease = 0;
            membership();
          } else {
            log.debug("deleting the member {} failed; retried at the next renewal", key, e);
          }
        }));
  }

  private void register(long leaseId) {
    if (registering) {
      return;
    }
    registering = true;
    ByteSequence key = bytes(SessionMember.key(prefix, leaseId));
    client.getKVClient()
        .put(key, bytes(SessionMember.value(weight, candidateId)), PutOption.builder().withLeaseId(leaseId).build())
        .orTimeout(rpcTimeoutNanos, TimeUnit.NANOSECONDS)
        .whenComplete((r, e) -> loop.execute(() -> {
          registering = false;
          if (e == null) {
            registeredLease = leaseId;
            if (sick != null) {
              membership(); // unhealthy meanwhile: out again
            } else if (listed) {
              fleet.renewed(leaseId); // the preferences, as soon as the view shows the member key
            }
          } else {
            log.debug("registering the member {} failed; retried at the next renewal", key, e);
          }
        }));
  }
}
