package dev.leasehold.local;

import dev.leasehold.Guarantee;
import dev.leasehold.etcd.protocol.EtcdCommand;
import dev.leasehold.etcd.protocol.EtcdInput;
import dev.leasehold.etcd.protocol.KeyRecord;
import dev.leasehold.Participant;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.StoreCall;
import dev.leasehold.runtime.StorePort;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;

/**
 * LocalPort is one elector's {@link StorePort} onto a {@link LocalStore}: each
 * {@link EtcdCommand} becomes one request to the store, answered with the {@link EtcdInput}
 * etcd's adapter would produce, so the etcd machine runs on it unchanged: the campaign, the
 * queue's participant keys ({@code Enlist}, read by {@code Poll(participants)}) and the
 * handover (PROTOCOL.md §4.5), and a watch of the key and its participant keys. The store's
 * raft term never changes, so every keep-alive ack and confirming read carry the same one.
 *
 * <p>Not thread-safe: the runtime's event loop calls it; replies complete on the store's
 * thread, where this class only maps data.
 */
final class LocalPort implements StorePort {
  private final LocalStore store;
  private final String key;
  private final String value;
  private final int priority;

  /** LocalPort campaigns for {@code key} with {@code value} (the candidate id) as its value, at priority 0. */
  LocalPort(LocalStore store, String key, String value) {
    this(store, key, value, 0);
  }

  /**
   * LocalPort campaigns for {@code key} with {@code value} (the candidate id) as its value, and
   * names its participant keys with {@code priority}.
   */
  LocalPort(LocalStore store, String key, String value, int priority) {
    this.store = store;
    this.key = key;
    this.value = value;
    this.priority = priority;
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
      // K and, when asked, the queue's keys: one range read, at one revision.
      return store.request(
          s -> new EtcdInput.PollResult(
              p.op(), s.get(key), s.revision(), p.participants() ? s.participants(key) : null),
          call::failed);
    } else if (call instanceof EtcdCommand.Rank r) {
      return store.request(
          s -> new EtcdInput.Ranked(r.op(), s.ahead(key, rankEnd(r.leaseId())), s.revision()),
          call::failed);
    } else if (call instanceof EtcdCommand.GrantLease g) {
      return store.request(
          s -> {
            StoreState.Lease l = s.grant(g.ttlSeconds(), store.now());
            return new EtcdInput.LeaseGranted(g.op(), l.id, l.ttlSeconds);
          },
          call::failed);
    } else if (call instanceof EtcdCommand.Campaign c) {
      return store.request(s -> campaign(s, c), call::failed);
    } else if (call instanceof EtcdCommand.Enlist e) {
      return store.request(s -> enlist(s, e), call::failed);
    } else if (call instanceof EtcdCommand.Handover h) {
      return store.request(s -> handover(s, h), call::failed);
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
          s -> new EtcdInput.ConfirmRead(r.op(), s.get(key), s.revision(), LocalStore.RAFT_TERM,
              r.rankOf() == 0 ? -1 : s.ahead(key, rankEnd(r.rankOf()))),
          call::failed);
    } else if (call instanceof EtcdCommand.ProbeLease p) {
      return store.request(
          s -> new EtcdInput.LeaseProbed(p.op(), true, s.isAlive(p.leaseId())), call::failed);
    }
    throw new IllegalArgumentException("not a local store call: " + call);
  }

  /**
   * campaign is etcd's {@code Txn(If CreateRevision(key) == 0, Then Put(key, value, lease),
   * Else Get(key))}, whose Else branch, for a campaign that enlists, also puts the participant
   * key on the lease (PROTOCOL.md §4.5); like etcd it fails as
   * a whole when a put's lease is gone.
   */
  private Input campaign(StoreState s, EtcdCommand.Campaign c) {
    KeyRecord holder = s.get(key);
    if (!s.isAlive(c.leaseId())) {
      return holder != null && !c.enlist()
          ? new EtcdInput.CampaignLost(c.op(), holder, s.revision())
          : new EtcdInput.CampaignFailed(c.op(), "requested lease not found");
    }
    if (holder != null && c.enlist()) {
      s.put(Participant.keyOf(key, c.leaseId(), priority), value, c.leaseId());
      return new EtcdInput.CampaignLost(c.op(), holder, s.revision(), true);
    }
    if (holder != null) {
      return new EtcdInput.CampaignLost(c.op(), holder, s.revision());
    }
    return new EtcdInput.CampaignWon(c.op(), s.put(key, value, c.leaseId()).createRevision());
  }

  /**
   * enlist is etcd's {@code Put(P(lease), value, lease)}: it joins the queue, or moves this
   * candidate to its tail; like etcd's put it fails when the lease is gone.
   */
  private Input enlist(StoreState s, EtcdCommand.Enlist e) {
    if (!s.isAlive(e.leaseId())) {
      return new EtcdInput.EnlistFailed(e.op(), "requested lease not found");
    }
    KeyRecord put = s.put(Participant.keyOf(key, e.leaseId(), priority), value, e.leaseId());
    return new EtcdInput.Enlisted(e.op(), put.modRevision());
  }

  /**
   * handover is etcd's {@code Txn(If ModRevision(key) == token, CreateRevision(P(successor)) ==
   * successor.createRevision, Then Put(key, successor's id, successor's lease), Put(P(own),
   * value, own lease), Else Get(key))}, in one revision; like etcd it fails as a whole when a
   * lease of the Then branch is gone.
   */
  private Input handover(StoreState s, EtcdCommand.Handover h) {
    Participant succ = h.successor();
    KeyRecord k = s.get(key);
    KeyRecord p = s.get(Participant.keyOf(key, succ.leaseId(), succ.priority()));
    boolean holds = k != null && k.modRevision() == h.token();
    boolean queued = p != null && p.createRevision() == succ.createRevision();
    if (!holds || !queued) {
      return new EtcdInput.HandoverRefused(h.op(), k, s.revision());
    }
    if (!s.isAlive(succ.leaseId()) || !s.isAlive(h.leaseId())) {
      return new EtcdInput.HandoverFailed(h.op(), "requested lease not found");
    }
    s.write(
        List.of(
            new StoreState.Put(key, succ.candidateId(), succ.leaseId()),
            new StoreState.Put(Participant.keyOf(key, h.leaseId(), priority), value, h.leaseId())));
    return new EtcdInput.HandedOver(h.op(), s.revision());
  }

  /**
   * rankEnd is where a count of those ahead ends: this candidate's participant key on {@code
   * leaseId}, or without one (0) the end of its priority's names (PROTOCOL.md §4.5).
   */
  private String rankEnd(long leaseId) {
    return leaseId == 0 ? Participant.rankEnd(key, priority) : Participant.keyOf(key, leaseId, priority);
  }

  @Override
  public void send(Command command, Consumer<Input> inbox) {
    if (command instanceof EtcdCommand.Watch w) {
      // A watch the store cannot serve ends at once, as etcd's requireLeader watch does.
      store
          .<Input>request(
              s -> {
                s.watch(this, w.watchId(), key, w.queue(), w.fromRevision(), inbox);
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
