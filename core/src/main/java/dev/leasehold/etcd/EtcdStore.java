package dev.leasehold.etcd;

import dev.leasehold.Guarantee;
import dev.leasehold.protocol.EtcdCommand;
import dev.leasehold.protocol.EtcdInput;
import dev.leasehold.protocol.KeyRecord;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.HandoverTrace;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.StoreCall;
import dev.leasehold.runtime.StorePort;
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
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * EtcdStore is the etcd adapter behind the runtime's {@link StorePort}: each
 * {@link EtcdCommand} becomes one jetcd call, each reply or watch notification one
 * {@link EtcdInput}. It holds no protocol state beyond the one open watch. A client it made
 * itself is replaced by a fresh one while calls cannot connect ({@link Reconnect}), so that
 * gRPC's own reconnect backoff does not outlast an outage by minutes.
 *
 * <p>Not thread-safe: the runtime's event loop calls it; jetcd completes its futures on its
 * own threads, where this class only maps data (and tells {@link Reconnect}, which is
 * thread-safe, how the call went) and never blocks.
 */
final class EtcdStore implements StorePort {
  private final Supplier<Client> clientFactory;
  private final boolean ownsClient;
  private final ByteSequence key;
  private final ByteSequence value;
  private final EtcdReasons reasons;
  private final Reconnect reconnect;
  private Client client;
  private Watch.Watcher watcher;
  private long watcherId;
  private Consumer<Input> watchInbox;

  /**
   * EtcdStore uses the client the factory makes at {@link #open()}, closes it if it owns it,
   * names failures with {@code reasons}, and replaces a client it owns with a fresh one when
   * {@code reconnect} (null: never) says so.
   */
  EtcdStore(
      Supplier<Client> clientFactory, boolean ownsClient, String key, String value,
      EtcdReasons reasons, Reconnect reconnect) {
    this.clientFactory = clientFactory;
    this.ownsClient = ownsClient;
    this.key = ByteSequence.from(key, StandardCharsets.UTF_8);
    this.value = ByteSequence.from(value, StandardCharsets.UTF_8);
    this.reasons = reasons;
    this.reconnect = ownsClient ? reconnect : null;
  }

  @Override
  public String backend() {
    return "etcd";
  }

  @Override
  public Guarantee guarantee() {
    return Guarantee.DISTRIBUTED;
  }

  @Override
  public void open() {
    if (client == null) {
      client = clientFactory.get();
    }
  }

  @Override
  public CompletionStage<? extends Input> call(StoreCall call) {
    reconnectIfDue();
    if (call instanceof EtcdCommand.Poll p) {
      return map(
          client.getKVClient().get(key),
          r -> new EtcdInput.PollResult(p.op(), first(r), r.getHeader().getRevision()),
          e -> new EtcdInput.PollFailed(p.op(), reasons.describe(e, "read")));
    } else if (call instanceof EtcdCommand.GrantLease g) {
      if (HandoverTrace.ON) {
        HandoverTrace.mark(HandoverTrace.Hop.GRANT_SENT);
      }
      return map(
          client.getLeaseClient().grant(g.ttlSeconds()),
          r -> new EtcdInput.LeaseGranted(g.op(), r.getID(), r.getTTL()),
          e -> new EtcdInput.GrantFailed(g.op(), reasons.describe(e, null)));
    } else if (call instanceof EtcdCommand.Campaign k) {
      if (HandoverTrace.ON) {
        HandoverTrace.mark(HandoverTrace.Hop.CAS_SENT);
      }
      return map(
          client
              .getKVClient()
              .txn()
              .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
              .Then(Op.put(key, value, PutOption.builder().withLeaseId(k.leaseId()).build()))
              .Else(Op.get(key, GetOption.DEFAULT))
              .commit(),
          r -> campaignResult(k.op(), r),
          e -> new EtcdInput.CampaignFailed(k.op(), reasons.describe(e, "write")));
    } else if (call instanceof EtcdCommand.KeepAlive k) {
      return map(
          client.getLeaseClient().keepAliveOnce(k.leaseId()),
          r -> new EtcdInput.KeepAliveAcked(k.op(), r.getTTL(), r.getHeader().getRaftTerm()),
          e ->
              new EtcdInput.KeepAliveFailed(k.op(), isLeaseNotFound(e), reasons.describe(e, null)));
    } else if (call instanceof EtcdCommand.ConfirmRead r) {
      return map(
          client.getKVClient().get(key),
          g -> new EtcdInput.ConfirmRead(
              r.op(), first(g), g.getHeader().getRevision(), g.getHeader().getRaftTerm()),
          e -> new EtcdInput.ConfirmFailed(r.op(), reasons.describe(e, "read")));
    } else if (call instanceof EtcdCommand.ProbeLease p) {
      return map(
          client.getLeaseClient().timeToLive(p.leaseId(), LeaseOption.DEFAULT),
          r -> new EtcdInput.LeaseProbed(p.op(), true, r.getTTL() > 0),
          e -> new EtcdInput.LeaseProbed(p.op(), isLeaseNotFound(e), false));
    }
    throw new IllegalArgumentException("not an etcd call: " + call);
  }

  @Override
  public void send(Command command, Consumer<Input> inbox) {
    if (command instanceof EtcdCommand.Watch w) {
      watch(w, inbox);
    } else if (command instanceof EtcdCommand.CancelWatch w) {
      if (watcher != null && watcherId == w.watchId()) {
        watcher.close();
        watcher = null;
      }
    } else {
      throw new IllegalArgumentException("not an etcd command: " + command);
    }
  }

  @Override
  public CompletionStage<?> release(long leaseId) {
    reconnectIfDue();
    return client
        .getLeaseClient()
        .revoke(leaseId)
        .handle(
            (r, e) -> {
              noteOutcome(e);
              if (e != null && !isLeaseNotFound(e)) {
                throw new CompletionException(unwrap(e));
              }
              return null;
            });
  }

  @Override
  public String describe(Throwable failure) {
    return reasons.describe(failure, null);
  }

  @Override
  public void close() {
    if (watcher != null) {
      watcher.close();
      watcher = null;
    }
    if (ownsClient && client != null) {
      client.close();
    }
  }

  /**
   * reconnectIfDue replaces an owned client whose calls have not been able to connect for a
   * while (see {@link Reconnect}); the open watch ends with it and is reported failed, so the
   * machine re-reads and watches again on the new client.
   */
  private void reconnectIfDue() {
    if (reconnect == null || client == null || !reconnect.due()) {
      return;
    }
    Client old = client;
    client = clientFactory.get();
    if (watcher != null) {
      // Closed with the old client; its own late notifications carry an id the machine dropped.
      watcher = null;
      watchInbox.accept(new EtcdInput.WatchFailed(watcherId, false, "reconnecting: new client"));
    }
    old.close();
  }

  private void noteOutcome(Throwable failure) {
    if (reconnect == null) {
      return;
    }
    if (failure == null) {
      reconnect.answered();
    } else {
      reconnect.failed(failure);
    }
  }

  private void watch(EtcdCommand.Watch w, Consumer<Input> inbox) {
    if (watcher != null) {
      watcher.close();
    }
    watchInbox = inbox;
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
                    response -> onWatchResponse(id, response, inbox),
                    error ->
                        inbox.accept(
                            new EtcdInput.WatchFailed(
                                id,
                                unwrap(error) instanceof CompactedException,
                                reasons.describe(error, "watch"))),
                    () -> inbox.accept(new EtcdInput.WatchFailed(id, false, "watch completed"))));
  }

  private static void onWatchResponse(long id, WatchResponse response, Consumer<Input> inbox) {
    for (WatchEvent e : response.getEvents()) {
      KeyValue kv = e.getKeyValue();
      switch (e.getEventType()) {
        case PUT -> inbox.accept(new EtcdInput.WatchPut(id, record(kv), kv.getModRevision()));
        case DELETE -> {
          if (HandoverTrace.ON) {
            HandoverTrace.mark(HandoverTrace.Hop.WATCH_DELETE);
          }
          inbox.accept(new EtcdInput.WatchDelete(id, kv.getModRevision()));
        }
        default -> {
          // UNRECOGNIZED carries nothing we can act on; the next poll corrects any gap.
        }
      }
    }
  }

  /** map turns a jetcd future into the input for its reply or its failure. */
  private <T> CompletionStage<Input> map(
      CompletableFuture<T> future, Function<T, Input> ok, Function<Throwable, Input> failed) {
    return future.handle(
        (r, e) -> {
          noteOutcome(e);
          try {
            return e == null ? ok.apply(r) : failed.apply(e);
          } catch (RuntimeException mapping) {
            return failed.apply(mapping);
          }
        });
  }

  private static Input campaignResult(long op, TxnResponse r) {
    if (HandoverTrace.ON) {
      HandoverTrace.mark(HandoverTrace.Hop.CAS_ACKED);
    }
    long revision = r.getHeader().getRevision();
    if (r.isSucceeded()) {
      // A put that creates a key creates it at the transaction's revision.
      return new EtcdInput.CampaignWon(op, revision);
    }
    KeyRecord holder = r.getGetResponses().isEmpty() ? null : first(r.getGetResponses().get(0));
    return new EtcdInput.CampaignLost(op, holder, revision);
  }

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
}
