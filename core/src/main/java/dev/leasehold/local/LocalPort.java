package dev.leasehold.local;

import dev.leasehold.Guarantee;
import dev.leasehold.protocol.EtcdCommand;
import dev.leasehold.protocol.EtcdInput;
import dev.leasehold.protocol.KeyRecord;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.StoreCall;
import dev.leasehold.runtime.StorePort;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;

/**
 * LocalPort is one elector's {@link StorePort} onto a {@link LocalStore}: each
 * {@link EtcdCommand} becomes one request to the store, answered with the {@link EtcdInput}
 * etcd's adapter would produce, so the etcd machine runs on it unchanged. The store's raft
 * term never changes, so every keep-alive ack and confirming read carry the same one.
 *
 * <p>Not thread-safe: the runtime's event loop calls it; replies complete on the store's
 * thread, where this class only maps data.
 */
final class LocalPort implements StorePort {
  private final LocalStore store;
  private final String key;
  private final String value;

  /** LocalPort campaigns for {@code key} with {@code value} (the candidate id) as its value. */
  LocalPort(LocalStore store, String key, String value) {
    this.store = store;
    this.key = key;
    this.value = value;
  }

  @Override
  public String backend() {
    return "local";
  }

  @Override
  public Guarantee guarantee() {
    return Guarantee.IN_PROCESS;
  }

  @Override
  public void open() {
    // Nothing to connect: the store is in this JVM.
  }

  @Override
  public CompletionStage<? extends Input> call(StoreCall call) {
    if (call instanceof EtcdCommand.Poll p) {
      return store.request(
          s -> new EtcdInput.PollResult(p.op(), s.get(key), s.revision()), call::failed);
    } else if (call instanceof EtcdCommand.GrantLease g) {
      return store.request(
          s -> {
            StoreState.Lease l = s.grant(g.ttlSeconds(), store.now());
            return new EtcdInput.LeaseGranted(g.op(), l.id, l.ttlSeconds);
          },
          call::failed);
    } else if (call instanceof EtcdCommand.Campaign c) {
      return store.request(s -> campaign(s, c), call::failed);
    } else if (call instanceof EtcdCommand.KeepAlive k) {
      return store.request(
          s -> {
            long ttl = s.keepAlive(k.leaseId(), store.now());
            return ttl > 0
                ? new EtcdInput.KeepAliveAcked(k.op(), ttl, LocalStore.RAFT_TERM)
                : new EtcdInput.KeepAliveFailed(k.op(), true, "requested lease not found");
          },
          call::failed);
    } else if (call instanceof EtcdCommand.ConfirmRead r) {
      return store.request(
          s -> new EtcdInput.ConfirmRead(r.op(), s.get(key), s.revision(), LocalStore.RAFT_TERM),
          call::failed);
    } else if (call instanceof EtcdCommand.ProbeLease p) {
      return store.request(
          s -> new EtcdInput.LeaseProbed(p.op(), true, s.isAlive(p.leaseId())), call::failed);
    }
    throw new IllegalArgumentException("not a local store call: " + call);
  }

  /**
   * campaign is etcd's {@code Txn(If CreateRevision(key) == 0, Then Put(key, value, lease),
   * Else Get(key))}; like etcd it fails as a whole when the Then branch's lease is gone.
   */
  private Input campaign(StoreState s, EtcdCommand.Campaign c) {
    KeyRecord holder = s.get(key);
    if (holder != null) {
      return new EtcdInput.CampaignLost(c.op(), holder, s.revision());
    }
    if (!s.isAlive(c.leaseId())) {
      return new EtcdInput.CampaignFailed(c.op(), "requested lease not found");
    }
    return new EtcdInput.CampaignWon(c.op(), s.put(key, value, c.leaseId()).createRevision());
  }

  @Override
  public void send(Command command, Consumer<Input> inbox) {
    if (command instanceof EtcdCommand.Watch w) {
      // A watch the store cannot serve ends at once, as etcd's requireLeader watch does.
      store
          .<Input>request(
              s -> {
                s.watch(this, w.watchId(), key, w.fromRevision(), inbox);
                return null;
              },
              reason -> new EtcdInput.WatchFailed(w.watchId(), false, reason))
          .thenAccept(
              failure -> {
                if (failure != null) {
                  inbox.accept(failure);
                }
              });
    } else if (command instanceof EtcdCommand.CancelWatch w) {
      store.request(
          s -> {
            s.cancelWatch(this, w.watchId());
            return null;
          },
          reason -> null);
    } else {
      throw new IllegalArgumentException("not a local store command: " + command);
    }
  }

  @Override
  public CompletionStage<?> release(long leaseId) {
    // Like etcd's revoke: a lease already gone counts as released.
    return store.request(
        s -> s.revoke(leaseId),
        reason -> {
          throw new IllegalStateException(reason);
        });
  }

  @Override
  public String describe(Throwable failure) {
    Throwable t = failure;
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t instanceof IllegalStateException ? t.getMessage() : t.toString();
  }

  @Override
  public void close() {
    store.request(
        s -> {
          s.cancelWatches(this);
          return null;
        },
        reason -> null);
  }
}
