package dev.leasehold.etcd;

import dev.leasehold.ElectorConfig;
import dev.leasehold.ElectorState;
import dev.leasehold.LeaderElector;
import dev.leasehold.LeaderInfo;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.LeadershipListener;
import dev.leasehold.Subscription;
import dev.leasehold.protocol.Command;
import dev.leasehold.protocol.ElectionMachine;
import dev.leasehold.protocol.Input;
import dev.leasehold.protocol.KeyRecord;
import dev.leasehold.protocol.ProtocolConfig;
import dev.leasehold.protocol.TimerKind;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.common.exception.CompactedException;
import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdException;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * EtcdLeaderElector runs the Leasehold protocol against etcd.
 *
 * <p>One event-loop thread per elector owns the {@link ElectionMachine}; jetcd callbacks only
 * enqueue inputs on it, and nothing ever blocks a jetcd or Vert.x thread. Events reach
 * listeners on a separate dispatcher thread (or the executor given at subscription), never
 * on the event loop and never under a lock.
 *
 * <p>Thread-safe: every public method may be called from any thread.
 */
public final class EtcdLeaderElector implements LeaderElector {
  private static final Logger log = LoggerFactory.getLogger(EtcdLeaderElector.class);
  private static final AtomicInteger SEQ = new AtomicInteger();

  private final ElectorConfig config;
  private final Client client;
  private final boolean ownsClient;
  private final ByteSequence key;
  private final ByteSequence value;
  private final LongSupplier clock;
  private final ElectionMachine machine;
  private final ScheduledThreadPoolExecutor loop;
  private final ExecutorService dispatcher;
  private final ListenerBus bus;
  private final Map<TimerKind, ScheduledFuture<?>> timers = new EnumMap<>(TimerKind.class);
  private final Set<CompletableFuture<Void>> revokes = ConcurrentHashMap.newKeySet();
  // Grants in flight: close() waits for them, so a lease granted after close is revoked.
  private final Set<CompletableFuture<?>> grants = ConcurrentHashMap.newKeySet();
  private final String name;
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean closing = new AtomicBoolean();
  private final CountDownLatch closed = new CountDownLatch(1);
  private volatile Thread dispatcherThread;
  private final Set<PendingSubscription> pendingSubscriptions = ConcurrentHashMap.newKeySet();

  // Written on the loop only, read anywhere.
  private volatile Snapshot snapshot = new Snapshot(ElectorState.FOLLOWER, null, null);

  // Loop-confined.
  private Watch.Watcher watcher;
  private long watcherId;
  private TermHandle term;

  private record Snapshot(ElectorState role, LeaderInfo leader, TermHandle term) {}

  private EtcdLeaderElector(Builder b, ElectorConfig config) {
    this.config = config;
    this.ownsClient = b.client == null;
    this.client =
        b.client != null
            ? b.client
            : Client.builder().endpoints(b.endpoints.toArray(String[]::new)).build();
    this.key = ByteSequence.from(config.electionKey(), StandardCharsets.UTF_8);
    this.value = ByteSequence.from(config.candidateId(), StandardCharsets.UTF_8);
    this.clock = b.clock;
    this.machine =
        new ElectionMachine(
            ProtocolConfig.from(config),
            b.randomSeed != null ? new SplittableRandom(b.randomSeed) : new SplittableRandom());
    int n = SEQ.incrementAndGet();
    this.name = config.candidateId() + "@" + config.electionKey();
    this.loop = new ScheduledThreadPoolExecutor(1, daemon("leasehold-loop-" + n));
    this.loop.setRemoveOnCancelPolicy(true);
    ThreadFactory events = daemon("leasehold-events-" + n);
    this.dispatcher = Executors.newSingleThreadExecutor(r -> {
      Thread t = events.newThread(r);
      dispatcherThread = t;
      return t;
    });
    this.bus = new ListenerBus(dispatcher);
  }

  /** builder starts configuring an elector. */
  public static Builder builder() {
    return new Builder();
  }

  /** config is the validated configuration this elector runs with. */
  public ElectorConfig config() {
    return config;
  }

  @Override
  public void start() {
    if (closing.get() || !started.compareAndSet(false, true)) {
      return;
    }
    log.info("{}: starting ({})", name, config);
    submit(new Input.Start());
  }

  @Override
  public ElectorState state() {
    return snapshot.role();
  }

  @Override
  public boolean isLeader() {
    Snapshot s = snapshot;
    return s.role() == ElectorState.MASTER && s.term() != null && s.term().isValid();
  }

  @Override
  public Optional<LeaderInfo> currentLeader() {
    return Optional.ofNullable(snapshot.leader());
  }

  @Override
  public Optional<Leadership> leadership() {
    Snapshot s = snapshot;
    return s.role() == ElectorState.MASTER ? Optional.ofNullable(s.term()) : Optional.empty();
  }

  @Override
  public void resign() {
    submit(new Input.Resign());
  }

  @Override
  public Subscription onLeadershipChanged(LeadershipListener listener) {
    return onLeadershipChanged(listener, dispatcher);
  }

  @Override
  public Subscription onLeadershipChanged(LeadershipListener listener, Executor executor) {
    Objects.requireNonNull(listener, "listener");
    Objects.requireNonNull(executor, "executor");
    ListenerBus.Sub sub = bus.newSubscription(listener, executor);
    PendingSubscription pending = new PendingSubscription(sub);
    pendingSubscriptions.add(pending);
    try {
      loop.execute(pending);
    } catch (RejectedExecutionException closedAlready) {
      if (!pending.claim()) {
        return sub; // close() delivered its first event
      }
      // The loop is gone, so the state can no longer change: tell the listener it is STOPPED
      // on the calling thread, the only thread left that is not ours.
      try {
        listener.onLeadershipChanged(snapshotEvent());
      } catch (RuntimeException e) {
        log.error("leadership listener {} threw on its first event", listener, e);
      }
    }
    return sub;
  }

  @Override
  public void close() {
    if (!closing.compareAndSet(false, true)) {
      // Another call is closing: return when it is done, so that no caller sees close()
      // return before the lease is revoked. A listener calling close() on the dispatcher
      // cannot wait for a close that waits for the dispatcher; it returns at once.
      if (Thread.currentThread() != dispatcherThread) {
        try {
          closed.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return;
    }
    try {
      CompletableFuture<Void> stepped = new CompletableFuture<>();
      try {
        loop.execute(
            () -> {
              try {
                handle(new Input.Close());
              } finally {
                stepped.complete(null);
              }
            });
        stepped.get(config.rpcTimeout().toMillis(), TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException | ExecutionException | TimeoutException e) {
        log.warn("{}: close could not step the machine: {}", name, e.toString());
      }
      // A grant still in flight reaches the (stopped) machine, which revokes its lease; wait
      // for its reply (bounded by the RPC timeout), then for the loop to have handled it.
      try {
        CompletableFuture.allOf(grants.toArray(CompletableFuture[]::new))
            .get(config.rpcTimeout().toMillis() + 100, TimeUnit.MILLISECONDS);
        loop.submit(() -> { }).get(config.rpcTimeout().toMillis(), TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException | ExecutionException | TimeoutException e) {
        log.debug("{}: in-flight grants at close: {}", name, e.toString());
      }
      // Wait for the revocations, so no lease (and no key) outlives close().
      CompletableFuture<?>[] pending = revokes.toArray(CompletableFuture[]::new);
      try {
        CompletableFuture.allOf(pending)
            .get(config.rpcTimeout().multipliedBy(2).toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException | TimeoutException e) {
        log.warn(
            "{}: lease revocation not confirmed at close ({}); the lease expires within its TTL",
            name,
            e.toString());
      }
      loop.shutdownNow();
      awaitTermination(loop);
      // A subscription whose first event was queued on the loop when it shut down still gets it.
      for (PendingSubscription p : pendingSubscriptions) {
        p.run();
      }
      Watch.Watcher w = watcher;
      if (w != null) {
        w.close();
      }
      dispatcher.shutdown();
      if (Thread.currentThread() != dispatcherThread) {
        awaitTermination(dispatcher);
      }
      if (ownsClient) {
        client.close();
      }
      log.info("{}: closed", name);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      closed.countDown();
    }
  }

  // ---- the event loop ----

  private void submit(Input input) {
    try {
      loop.execute(() -> handle(input));
    } catch (RejectedExecutionException closedAlready) {
      // After close the machine accepts nothing; a late grant was already revoked at close.
    }
  }

  private void handle(Input input) {
    List<Command> commands;
    try {
      commands = machine.step(input, clock.getAsLong());
    } catch (RuntimeException e) {
      log.error("{}: protocol machine failed on {}", name, input, e);
      return;
    }
    // Publish the new state before carrying out commands, so isLeader() turns false before
    // any listener hears of a loss.
    refreshSnapshot();
    for (Command c : commands) {
      try {
        execute(c);
      } catch (RuntimeException e) {
        log.error("{}: failed to carry out {}", name, c, e);
      }
    }
  }

  private void refreshSnapshot() {
    ElectorState role = machine.role();
    if (term != null && (role != ElectorState.MASTER || machine.fencingToken() != term.fencingToken())) {
      term.end();
    }
    if (role == ElectorState.MASTER && term != null && !term.ended()) {
      term.extend(machine.deadline());
    }
    TermHandle current = role == ElectorState.MASTER && term != null && !term.ended() ? term : null;
    snapshot = new Snapshot(role, machine.leader(), current);
  }

  private void execute(Command c) {
    if (c instanceof Command.Poll p) {
      call(
          client.getKVClient().get(key),
          r -> new Input.PollResult(p.op(), first(r), r.getHeader().getRevision()),
          e -> new Input.PollFailed(p.op(), describe(e)));
    } else if (c instanceof Command.GrantLease g) {
      CompletableFuture<?> delivered =
          call(
              client.getLeaseClient().grant(g.ttlSeconds()),
              r -> new Input.LeaseGranted(g.op(), r.getID(), r.getTTL()),
              e -> new Input.GrantFailed(g.op(), describe(e)));
      grants.add(delivered);
      delivered.whenComplete((v, e) -> grants.remove(delivered));
    } else if (c instanceof Command.Campaign k) {
      campaign(k);
    } else if (c instanceof Command.KeepAlive k) {
      call(
          client.getLeaseClient().keepAliveOnce(k.leaseId()),
          r -> new Input.KeepAliveAcked(k.op(), r.getTTL(), r.getHeader().getRaftTerm()),
          e -> new Input.KeepAliveFailed(k.op(), isLeaseNotFound(e), describe(e)));
    } else if (c instanceof Command.ConfirmRead r) {
      call(
          client.getKVClient().get(key),
          g -> new Input.ConfirmRead(
              r.op(), first(g), g.getHeader().getRevision(), g.getHeader().getRaftTerm()),
          e -> new Input.ConfirmFailed(r.op(), describe(e)));
    } else if (c instanceof Command.ProbeLease p) {
      call(
          client.getLeaseClient().timeToLive(p.leaseId(), LeaseOption.DEFAULT),
          r -> new Input.LeaseProbed(p.op(), true, r.getTTL() > 0),
          e -> new Input.LeaseProbed(p.op(), isLeaseNotFound(e), false));
    } else if (c instanceof Command.Revoke r) {
      revoke(r.leaseId(), clock.getAsLong() + config.leaseTtl().toNanos() * 2, 0);
    } else if (c instanceof Command.Watch w) {
      watch(w);
    } else if (c instanceof Command.CancelWatch w) {
      if (watcher != null && watcherId == w.watchId()) {
        watcher.close();
        watcher = null;
      }
    } else if (c instanceof Command.SetTimer t) {
      ScheduledFuture<?> old = timers.remove(t.kind());
      if (old != null) {
        old.cancel(false);
      }
      long delay = Math.max(0, t.atNanos() - clock.getAsLong());
      timers.put(
          t.kind(),
          loop.schedule(
              () -> handle(new Input.TimerFired(t.kind(), t.seq())), delay, TimeUnit.NANOSECONDS));
    } else if (c instanceof Command.CancelTimer t) {
      ScheduledFuture<?> old = timers.remove(t.kind());
      if (old != null) {
        old.cancel(false);
      }
    } else if (c instanceof Command.Publish p) {
      publish(p);
    } else {
      throw new IllegalStateException("unknown command " + c);
    }
  }

  private void campaign(Command.Campaign k) {
    long lease = k.leaseId();
    call(
        client
            .getKVClient()
            .txn()
            .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
            .Then(Op.put(key, value, PutOption.builder().withLeaseId(lease).build()))
            .Else(Op.get(key, GetOption.DEFAULT))
            .commit(),
        r -> campaignResult(k.op(), r),
        e -> new Input.CampaignFailed(k.op(), describe(e)));
  }

  private static Input campaignResult(long op, TxnResponse r) {
    long revision = r.getHeader().getRevision();
    if (r.isSucceeded()) {
      // A put that creates a key creates it at the transaction's revision.
      return new Input.CampaignWon(op, revision);
    }
    KeyRecord holder = r.getGetResponses().isEmpty() ? null : first(r.getGetResponses().get(0));
    return new Input.CampaignLost(op, holder, revision);
  }

  private void watch(Command.Watch w) {
    if (watcher != null) {
      watcher.close();
    }
    long id = w.watchId();
    WatchOption option =
        WatchOption.builder().withRevision(w.fromRevision()).withRequireLeader(true).build();
    watcherId = id;
    watcher =
        client
            .getWatchClient()
            .watch(
                key,
                option,
                Watch.listener(
                    response -> onWatchResponse(id, response),
                    error ->
                        submit(
                            new Input.WatchFailed(
                                id, unwrap(error) instanceof CompactedException, describe(error))),
                    () -> submit(new Input.WatchFailed(id, false, "watch completed"))));
  }

  private void onWatchResponse(long id, WatchResponse response) {
    for (WatchEvent e : response.getEvents()) {
      KeyValue kv = e.getKeyValue();
      switch (e.getEventType()) {
        case PUT -> submit(new Input.WatchPut(id, record(kv), kv.getModRevision()));
        case DELETE -> submit(new Input.WatchDelete(id, kv.getModRevision()));
        default -> {
          // UNRECOGNIZED carries nothing we can act on; the next poll corrects any gap.
        }
      }
    }
  }

  private void revoke(long leaseId, long giveUpAt, int attempt) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    revokes.add(done);
    done.whenComplete((v, e) -> revokes.remove(done));
    client
        .getLeaseClient()
        .revoke(leaseId)
        .orTimeout(config.rpcTimeout().toMillis(), TimeUnit.MILLISECONDS)
        .whenComplete(
            (r, e) -> {
              if (e == null || isLeaseNotFound(e)) {
                done.complete(null);
                return;
              }
              // Retry until etcd confirms, or until the lease has surely expired by itself.
              long now = clock.getAsLong();
              if (now - giveUpAt >= 0 || closing.get()) {
                log.warn(
                    "{}: could not revoke lease {} ({}); it expires within its TTL",
                    name,
                    Long.toHexString(leaseId),
                    describe(e));
                done.complete(null);
                return;
              }
              long delay = Math.min(config.retryBackoffMax().toMillis(),
                  config.retryBackoffInitial().toMillis() << Math.min(attempt, 10));
              try {
                loop.schedule(
                    () -> {
                      revoke(leaseId, giveUpAt, attempt + 1);
                      done.complete(null);
                    },
                    delay,
                    TimeUnit.MILLISECONDS);
              } catch (RejectedExecutionException closedAlready) {
                done.complete(null);
              }
            });
  }

  private void publish(Command.Publish p) {
    Instant now = Instant.now();
    Optional<Leadership> leadership = Optional.empty();
    if (p.cause() == Cause.ELECTED) {
      term =
          new TermHandle(
              config.electionKey(),
              config.candidateId(),
              machine.fencingToken(),
              machine.leaseId(),
              now,
              clock,
              machine.deadline());
      refreshSnapshot();
      leadership = Optional.of(term);
    }
    LeadershipEvent event =
        new LeadershipEvent(
            p.from(), p.to(), p.cause(), Optional.ofNullable(p.leader()), now, p.nanoTime(),
            leadership);
    logTransition(event);
    if (event.isLost() && term != null) {
      TermHandle ended = term;
      ended.end();
      term = null;
      try {
        dispatcher.execute(() -> ended.completeLost(event));
      } catch (RejectedExecutionException closedAlready) {
        log.warn("{}: dispatcher gone; whenLost() callbacks not run for {}", name, event.cause());
      }
    }
    bus.publish(event);
  }

  private void logTransition(LeadershipEvent e) {
    String leader = e.leader().map(l -> l.candidateId() + " token=" + l.fencingToken()).orElse("none");
    if (e.cause() == Cause.ETCD_UNAVAILABLE) {
      log.warn("{}: etcd unavailable, retrying with backoff (role {})", name, e.to());
    } else if (e.from() == e.to()) {
      log.info("{}: {} (role {}, leader {})", name, e.cause(), e.to(), leader);
    } else {
      log.info("{}: {} -> {} ({}), leader {}", name, e.from(), e.to(), e.cause(), leader);
    }
  }

  private LeadershipEvent snapshotEvent() {
    Snapshot s = snapshot;
    Optional<Leadership> leadership =
        s.role() == ElectorState.MASTER ? Optional.ofNullable(s.term()) : Optional.empty();
    return new LeadershipEvent(
        s.role(), s.role(), Cause.SUBSCRIBED, Optional.ofNullable(s.leader()), Instant.now(),
        clock.getAsLong(), leadership);
  }

  /** call maps a jetcd result to an input and enqueues it; the returned stage ends after that. */
  private <T> CompletableFuture<Void> call(
      CompletableFuture<T> future, Function<T, Input> ok, Function<Throwable, Input> failed) {
    return future
        .orTimeout(config.rpcTimeout().toMillis(), TimeUnit.MILLISECONDS)
        .handle(
            (r, e) -> {
              // Runs on a jetcd/Vert.x (or timeout) thread: map the data, hand it to the loop.
              Input in;
              try {
                in = e == null ? ok.apply(r) : failed.apply(e);
              } catch (RuntimeException mapping) {
                in = failed.apply(mapping);
              }
              submit(in);
              return null;
            });
  }

  // ---- helpers ----

  private static KeyRecord first(GetResponse r) {
    return r.getKvs().isEmpty() ? null : record(r.getKvs().get(0));
  }

  private static KeyRecord record(KeyValue kv) {
    return new KeyRecord(
        kv.getValue().toString(StandardCharsets.UTF_8),
        kv.getLease(),
        kv.getCreateRevision(),
        kv.getModRevision());
  }

  private static Throwable unwrap(Throwable e) {
    while ((e instanceof CompletionException || e instanceof ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  private static boolean isLeaseNotFound(Throwable e) {
    Throwable t = unwrap(e);
    if (t instanceof EtcdException ee && ee.getErrorCode() == ErrorCode.NOT_FOUND) {
      return true;
    }
    String m = t.getMessage();
    return m != null && m.contains("requested lease not found");
  }

  private static String describe(Throwable e) {
    Throwable t = unwrap(e);
    if (t instanceof TimeoutException) {
      return "timed out";
    }
    return t.getClass().getSimpleName() + ": " + t.getMessage();
  }

  private static ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  private static void awaitTermination(ExecutorService e) throws InterruptedException {
    if (!e.awaitTermination(5, TimeUnit.SECONDS)) {
      log.warn("executor did not terminate within 5 s");
    }
  }

  /**
   * PendingSubscription delivers a new subscription's first event (the current state) exactly
   * once: on the loop, or, if close() shut the loop down first, from close().
   */
  private final class PendingSubscription implements Runnable {
    private final ListenerBus.Sub sub;
    private final AtomicBoolean claimed = new AtomicBoolean();

    PendingSubscription(ListenerBus.Sub sub) {
      this.sub = sub;
    }

    boolean claim() {
      if (claimed.compareAndSet(false, true)) {
        pendingSubscriptions.remove(this);
        return true;
      }
      return false;
    }

    @Override
    public void run() {
      if (claim()) {
        bus.add(sub, snapshotEvent());
      }
    }
  }

  /**
   * Builder configures an {@link EtcdLeaderElector}; {@link #build()} validates everything
   * and names the field and the value of the first problem.
   *
   * <p>Not thread-safe.
   */
  public static final class Builder {
    private final ElectorConfig.Builder config = ElectorConfig.builder();
    private List<String> endpoints;
    private Client client;
    private LongSupplier clock = System::nanoTime;
    private Long randomSeed;

    private Builder() {}

    /** endpoints sets the etcd client URLs, such as {@code http://127.0.0.1:2379}. */
    public Builder endpoints(String... endpoints) {
      this.endpoints = endpoints == null ? null : Arrays.asList(endpoints);
      return this;
    }

    /** endpoints sets the etcd client URLs. */
    public Builder endpoints(List<String> endpoints) {
      this.endpoints = endpoints == null ? null : new ArrayList<>(endpoints);
      return this;
    }

    /** client uses an existing jetcd client instead of endpoints; the elector never closes it. */
    public Builder client(Client client) {
      this.client = client;
      return this;
    }

    /** electionKey sets the key to hold (required). */
    public Builder electionKey(String electionKey) {
      config.electionKey(electionKey);
      return this;
    }

    /** candidateId sets this instance's label; default host-pid-random. */
    public Builder candidateId(String candidateId) {
      config.candidateId(candidateId);
      return this;
    }

    /** leaseTtl sets the lease TTL; see {@link ElectorConfig.Builder#leaseTtl}. */
    public Builder leaseTtl(Duration leaseTtl) {
      config.leaseTtl(leaseTtl);
      return this;
    }

    /** safetyMargin sets the step-down margin; see {@link ElectorConfig.Builder#safetyMargin}. */
    public Builder safetyMargin(Duration safetyMargin) {
      config.safetyMargin(safetyMargin);
      return this;
    }

    /** maxDriftRate sets the clock rate bound; see {@link ElectorConfig.Builder#maxDriftRate}. */
    public Builder maxDriftRate(double maxDriftRate) {
      config.maxDriftRate(maxDriftRate);
      return this;
    }

    /** pollInterval sets the follower read period; see {@link ElectorConfig.Builder#pollInterval}. */
    public Builder pollInterval(Duration pollInterval) {
      config.pollInterval(pollInterval);
      return this;
    }

    /** rpcTimeout bounds each etcd call; see {@link ElectorConfig.Builder#rpcTimeout}. */
    public Builder rpcTimeout(Duration rpcTimeout) {
      config.rpcTimeout(rpcTimeout);
      return this;
    }

    /** retryBackoff sets retry delays; see {@link ElectorConfig.Builder#retryBackoff}. */
    public Builder retryBackoff(Duration initial, Duration max) {
      config.retryBackoff(initial, max);
      return this;
    }

    /** resignHoldoff sets the sit-out after resign; see {@link ElectorConfig.Builder#resignHoldoff}. */
    public Builder resignHoldoff(Duration resignHoldoff) {
      config.resignHoldoff(resignHoldoff);
      return this;
    }

    /** standbyLease sets whether followers keep a lease ready; see {@link ElectorConfig.Builder#standbyLease}. */
    public Builder standbyLease(boolean standbyLease) {
      config.standbyLease(standbyLease);
      return this;
    }

    /** clock replaces the monotonic clock (nanoseconds); for tests. */
    Builder clock(LongSupplier clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** randomSeed fixes the retry jitter; for tests. */
    Builder randomSeed(long seed) {
      this.randomSeed = seed;
      return this;
    }

    /** build validates the settings and creates an elector that has not started. */
    public EtcdLeaderElector build() {
      ElectorConfig validated = config.build();
      if (client != null && endpoints != null) {
        throw new IllegalArgumentException(
            "endpoints must not be set together with client, but was " + endpoints);
      }
      if (client == null) {
        validateEndpoints(endpoints);
      }
      return new EtcdLeaderElector(this, validated);
    }

    private static void validateEndpoints(List<String> endpoints) {
      if (endpoints == null || endpoints.isEmpty()) {
        throw new IllegalArgumentException(
            "endpoints must name at least one etcd URL such as http://127.0.0.1:2379 (or set"
                + " client), but was " + endpoints);
      }
      for (int i = 0; i < endpoints.size(); i++) {
        String e = endpoints.get(i);
        String problem = endpointProblem(e);
        if (problem != null) {
          throw new IllegalArgumentException(
              "endpoints[" + i + "] must be a URL like http://127.0.0.1:2379 (" + problem
                  + "), but was " + (e == null ? "null" : "\"" + e + "\""));
        }
      }
    }

    private static String endpointProblem(String e) {
      if (e == null || e.isBlank()) {
        return "empty";
      }
      if (!e.contains("://")) {
        return "scheme must be http or https";
      }
      URI uri;
      try {
        uri = new URI(e.trim());
      } catch (Exception bad) {
        return "not a URI";
      }
      if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
        return "scheme must be http or https";
      }
      if (uri.getHost() == null) {
        return "no host";
      }
      if (uri.getPort() <= 0 || uri.getPort() > 65535) {
        return "no port";
      }
      return null;
    }
  }
}
