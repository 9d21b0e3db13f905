package dev.leasehold.etcd;

import dev.leasehold.Guarantee;
import dev.leasehold.etcd.protocol.EtcdCommand;
import dev.leasehold.etcd.protocol.EtcdInput;
import dev.leasehold.etcd.protocol.KeyRecord;
import dev.leasehold.Participant;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.StoreCall;
import dev.leasehold.runtime.StorePort;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Txn;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.etcd.jetcd.options.OptionsUtil;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * EtcdPort is the etcd adapter behind the runtime's {@link StorePort}: each
 * {@link EtcdCommand} becomes one jetcd call, each reply or watch notification one
 * {@link EtcdInput}. It holds no protocol state beyond the one open watch ({@link EtcdWatch}:
 * the key and its participant keys, PROTOCOL.md §4.5). A client it made
 * itself is replaced by a fresh one while calls cannot connect ({@link Reconnect}), so that
 * gRPC's own reconnect backoff does not outlast an outage by minutes.
 *
 * <p>Not thread-safe: the runtime's event loop calls it; jetcd completes its futures on its
 * own threads, where this class only maps data (and tells {@link Reconnect}, which is
 * thread-safe, how the call went) and never blocks.
 */
final class EtcdPort implements StorePort {
  private final Supplier<Client> clientFactory;
  private final boolean ownsClient;
  private final String electionKey;
  private final ByteSequence key;
  private final ByteSequence prefix;
  private final QueueAccess queueAccess;
  private final ByteSequence value;
  private final int priority;
  private final EtcdReasons reasons;
  private final Reconnect reconnect;
  private final long hedgeAfterNanos;
  // The cold lane of this port's given client and key (null: an owned client, none), and this
  // port's cold grants that have not ended: close() cancels those still waiting in the lane, so
  // that none is sent for an elector that has closed (its lease would be left behind a TTL).
  private final ColdLane lane;
  private final Set<CompletableFuture<?>> laned = ConcurrentHashMap.newKeySet();
  private Client client;
  private EtcdWatch watch;
  private Consumer<Input> watchInbox;

  /** EtcdPort is a port whose participant keys have priority 0 (see the other constructor). */
  EtcdPort(
      Supplier<Client> clientFactory, boolean ownsClient, String key, String value,
      EtcdReasons reasons, Reconnect reconnect, long hedgeAfterNanos) {
    this(clientFactory, ownsClient, key, value, 0, reasons, reconnect, hedgeAfterNanos, null);
  }

  /**
   * EtcdPort uses the client the factory makes at {@link #open()}, closes it if it owns it,
   * names its participant keys with {@code priority}, names failures with {@code reasons}, and replaces a client it owns with a fresh one when
   * {@code reconnect} (null: never) says so, and sends a renewal's call again after
   * {@code hedgeAfterNanos} without an answer ({@link Hedge}), and makes its cold campaign in
   * {@code lane} (null: at once; {@link ColdLane}).
   */
  EtcdPort(
      Supplier<Client> clientFactory, boolean ownsClient, String key, String value, int priority,
      EtcdReasons reasons, Reconnect reconnect, long hedgeAfterNanos, ColdLane lane) {
    this.clientFactory = clientFactory;
    this.ownsClient = ownsClient;
    this.electionKey = key;
    this.key = ByteSequence.from(key, StandardCharsets.UTF_8);
    this.prefix = ByteSequence.from(Participant.prefix(key), StandardCharsets.UTF_8);
    this.queueAccess = new QueueAccess(Participant.prefix(key));
    this.value = ByteSequence.from(value, StandardCharsets.UTF_8);
    this.priority = priority;
    this.reasons = reasons;
    this.reconnect = ownsClient ? reconnect : null;
    this.hedgeAfterNanos = hedgeAfterNanos;
    this.lane = lane;
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
      return p.participants() && !queueAccess.refused() ? pollWithQueue(p) : poll(p);
    } else if (call instanceof EtcdCommand.GrantLease g) {
      return map(
          grant(g),
          r -> new EtcdInput.LeaseGranted(g.op(), r.getID(), r.getTTL()),
          e -> new EtcdInput.GrantFailed(g.op(), reasons.describe(e, null)));
    } else if (call instanceof EtcdCommand.Campaign k) {
      CompletionStage<? extends Input> reply = k.enlist() && !queueAccess.refused() ? enlistingCampaign(k) : campaign(k);
      if (lane != null) {
        // Answered or failed: if this port was the lane's pilot, the others' cold campaigns go.
        reply.whenComplete((r, e) -> lane.landed(this));
      }
      return reply;
    } else if (call instanceof EtcdCommand.Enlist n) {
      if (queueAccess.refused()) {
        return CompletableFuture.completedFuture(
            new EtcdInput.EnlistFailed(n.op(), "no permission on the queue's prefix"));
      }
      return map(
          client
              .getKVClient()
              .put(participantKey(n.leaseId()), value,
                  PutOption.builder().withLeaseId(n.leaseId()).build()),
          r -> new EtcdInput.Enlisted(n.op(), r.getHeader().getRevision()),
          e -> {
            queueAccess.noteRefusal(e);
            return new EtcdInput.EnlistFailed(n.op(), reasons.describe(e, "write"));
          });
    } else if (call instanceof EtcdCommand.Rank k) {
      return rank(k);
    } else if (call instanceof EtcdCommand.Handover h) {
      return handover(h);
    } else if (call instanceof EtcdCommand.KeepAlive k) {
      Client c = client;
      return map(
          Hedge.first(
              () -> c.getLeaseClient().keepAliveOnce(k.leaseId()), hedgeAfterNanos, EtcdReasons::isUnavailable),
          r -> new EtcdInput.KeepAliveAcked(k.op(), r.getTTL(), r.getHeader().getRaftTerm()),
          e ->
              new EtcdInput.KeepAliveFailed(k.op(), EtcdRecords.isLeaseNotFound(e), reasons.describe(e, null)));
    } else if (call instanceof EtcdCommand.ConfirmRead r) {
      return r.rankOf() != 0 && !queueAccess.refused() ? confirmAndRank(r) : confirm(r);
    } else if (call instanceof EtcdCommand.ProbeLease p) {
      return map(
          client.getLeaseClient().timeToLive(p.leaseId(), LeaseOption.DEFAULT),
          r -> new EtcdInput.LeaseProbed(p.op(), true, r.getTTL() > 0),
          e -> new EtcdInput.LeaseProbed(p.op(), EtcdRecords.isLeaseNotFound(e), false));
    }
    throw new IllegalArgumentException("not an etcd call: " + call);
  }

  /**
   * grant sends a lease grant; a cold one (PROTOCOL.md §4.5) goes through the lane, if there is
   * one, and its own deadline ({@code waitNanos}) counts from now, the time it waits included.
   */
  private CompletableFuture<LeaseGrantResponse> grant(EtcdCommand.GrantLease g) {
    Client c = client;
    if (lane == null || g.waitNanos() <= 0) {
      return CallDeadline.within(g.waitNanos(), () -> c.getLeaseClient().grant(g.ttlSeconds()));
    }
    long due = System.nanoTime() + g.waitNanos();
    CompletableFuture<LeaseGrantResponse> f = lane.send(this,
        () -> CallDeadline.within(Math.max(1, due - System.nanoTime()), () -> c.getLeaseClient().grant(g.ttlSeconds())),
        g.waitNanos());
    laned.add(f);
    f.whenComplete((r, e) -> {
      laned.remove(f);
      if (e != null) {
        lane.landed(this); // a pilot whose grant failed makes no campaign
      }
    });
    return f;
  }

  @Override
  public void send(Command command, Consumer<Input> inbox) {
    if (command instanceof EtcdCommand.Watch w) {
      closeWatch();
      watchInbox = inbox;
      watch = new EtcdWatch(
          client, electionKey, w.watchId(), w.fromRevision(), w.queue() && !queueAccess.refused(), reasons, inbox);
    } else if (command instanceof EtcdCommand.CancelWatch w) {
      if (watch != null && watch.id() == w.watchId()) {
        closeWatch();
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
              if (e != null && !EtcdRecords.isLeaseNotFound(e)) {
                throw new CompletionException(EtcdRecords.unwrap(e));
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
    closeWatch();
    if (lane != null) {
      // Cold grants still waiting in the lane are dropped unsent; a pilot that closes lands.
      laned.forEach(f -> f.cancel(false));
      lane.landed(this);
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
    if (watch != null) {
      // Both watchers are closed with the old client, and report nothing more.
      if (watch.abandon()) {
        watchInbox.accept(new EtcdInput.WatchFailed(watch.id(), false, "reconnecting: new client"));
      }
      watch = null;
    }
    old.close();
  }

  private void closeWatch() {
    if (watch != null) {
      watch.close();
      watch = null;
    }
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

  // The campaign: Txn(If CreateRevision(K) == 0, Then Put(K, id, lease), Else Get(K)).
  private CompletionStage<Input> campaign(EtcdCommand.Campaign k) {
    return map(
        CallDeadline.within(k.waitNanos(), () -> campaignTxn(k.leaseId()).Else(Op.get(key, GetOption.DEFAULT)).commit()),
        r -> EtcdRecords.campaignResult(k.op(), r),
        e -> new EtcdInput.CampaignFailed(k.op(), reasons.describe(e, "write")));
  }

  /**
   * enlistingCampaign is the campaign whose Else branch also puts the participant key on the
   * campaign's lease (PROTOCOL.md §4.5). If etcd refuses it a
   * permission, the plain campaign is sent (a refused transaction applies nothing): allowed,
   * the refusal was the queue's prefix ({@link QueueAccess}), and its answer is the campaign's.
   */
  private CompletionStage<Input> enlistingCampaign(EtcdCommand.Campaign k) {
    ByteSequence own = participantKey(k.leaseId());
    CompletableFuture<TxnResponse> txn =
        CallDeadline.within(k.waitNanos(), () -> campaignTxn(k.leaseId())
            .Else(Op.get(key, GetOption.DEFAULT),
                Op.put(own, value, PutOption.builder().withLeaseId(k.leaseId()).build()))
            .commit());
    return txn.handle((r, e) -> e)
        .thenCompose(
            e -> {
              if (e == null || !QueueAccess.isPermissionDenied(e)) {
                return map(txn, r -> EtcdRecords.enlistingCampaignResult(k.op(), r),
                    f -> new EtcdInput.CampaignFailed(k.op(), reasons.describe(f, "write")));
              }
              return campaign(k)
                  .thenApply(
                      in -> {
                        if (!(in instanceof EtcdInput.CampaignFailed)) {
                          queueAccess.refuse();
                        }
                        return in;
                      });
            });
  }

  private Txn campaignTxn(long leaseId) {
    return client
        .getKVClient()
        .txn()
        .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
        .Then(Op.put(key, value, PutOption.builder().withLeaseId(leaseId).build()));
  }

  // A read of the key alone; asked for the queue, it answers with an empty one (QueueAccess).
  private CompletionStage<Input> poll(EtcdCommand.Poll p) {
    return map(
        EtcdRecords.read(client, Op.get(key, GetOption.DEFAULT)),
        t -> new EtcdInput.PollResult(p.op(), EtcdRecords.first(t.getGetResponses().get(0)), t.getHeader().getRevision(),
            p.participants() ? List.of() : null),
        e -> new EtcdInput.PollFailed(p.op(), reasons.describe(e, "read")));
  }

  /**
   * rank counts the participant keys named before this lease's (without one, those of this
   * candidate's priority or a higher one, {@link Participant#rankEnd}): a linearizable count-only range
   * read, which etcd answers from its in-memory index without reading a key (a revision filter
   * would make it read them all, and etcd's count ignores such filters anyway). Refused the
   * prefix, nobody is ahead (QueueAccess).
   */
  private CompletionStage<Input> rank(EtcdCommand.Rank k) {
    if (queueAccess.refused()) {
      return CompletableFuture.completedFuture(new EtcdInput.Ranked(k.op(), 0, 0));
    }
    ByteSequence end = k.leaseId() == 0
        ? ByteSequence.from(Participant.rankEnd(electionKey, priority), StandardCharsets.UTF_8)
        : participantKey(k.leaseId());
    GetOption ahead = GetOption.builder().withRange(end).withCountOnly(true).build();
    return map(
        EtcdRecords.read(client, Op.get(prefix, ahead)),
        t -> new EtcdInput.Ranked(k.op(), t.getGetResponses().get(0).getCount(), t.getHeader().getRevision()),
        e -> {
          queueAccess.noteRefusal(e);
          return new EtcdInput.RankFailed(k.op(), reasons.describe(e, "read"));
        });
  }

  /**
   * confirmAndRank is a standby renewal's confirming read that also counts the participant keys
   * named before this lease's: one read-only transaction, so one linearizable read at one
   * revision in one raft term, the count from etcd's index (see rank).
   */
  private CompletionStage<Input> confirmAndRank(EtcdCommand.ConfirmRead r) {
    GetOption ahead = GetOption.builder().withRange(participantKey(r.rankOf())).withCountOnly(true).build();
    Client c = client;
    return keyAndQueue(
        Hedge.first(
            () -> EtcdRecords.read(c, Op.get(key, GetOption.DEFAULT), Op.get(prefix, ahead)),
            hedgeAfterNanos, EtcdReasons::isUnavailable),
        t -> new EtcdInput.ConfirmRead(
            r.op(), EtcdRecords.first(t.getGetResponses().get(0)), t.getHeader().getRevision(),
            t.getHeader().getRaftTerm(), t.getGetResponses().get(1).getCount()),
        e -> new EtcdInput.ConfirmFailed(r.op(), reasons.describe(e, "read")),
        () -> confirm(r));
  }

  /** confirm is a renewal's confirming read of the key alone (hedged, see Hedge). */
  private CompletionStage<Input> confirm(EtcdCommand.ConfirmRead r) {
    Client c = client;
    return map(
        Hedge.first(
            () -> EtcdRecords.read(c, Op.get(key, GetOption.DEFAULT)), hedgeAfterNanos, EtcdReasons::isUnavailable),
        t -> new EtcdInput.ConfirmRead(
            r.op(), EtcdRecords.first(t.getGetResponses().get(0)), t.getHeader().getRevision(), t.getHeader().getRaftTerm()),
        e -> new EtcdInput.ConfirmFailed(r.op(), reasons.describe(e, "read")));
  }

  /**
   * keyAndQueue maps a read-only transaction that reads the key and the queue's prefix. If etcd
   * refused it a permission, the refusal may be the key's or the prefix's: the key is then read
   * alone ({@code keyOnly}), and only if that is allowed was it the prefix (QueueAccess).
   */
  private CompletionStage<Input> keyAndQueue(
      CompletableFuture<TxnResponse> both, Function<TxnResponse, Input> ok, Function<Throwable, Input> failed,
      Supplier<CompletionStage<Input>> keyOnly) {
    return both.handle((r, e) -> e != null && QueueAccess.isPermissionDenied(e))
        .thenCompose(denied -> !denied ? map(both, ok, failed) : keyOnly.get().thenApply(in -> {
          if (!(in instanceof Input.Failed)) {
            queueAccess.refuse();
          }
          return in;
        }));
  }

  /**
   * pollWithQueue reads the key and the participant prefix in one read-only transaction: one
   * linearizable read, both at the same revision, and no raft proposal.
   */
  private CompletionStage<Input> pollWithQueue(EtcdCommand.Poll p) {
    GetOption queue = GetOption.builder().withRange(OptionsUtil.prefixEndOf(prefix)).build();
    return keyAndQueue(
        EtcdRecords.read(client, Op.get(key, GetOption.DEFAULT), Op.get(prefix, queue)),
        r -> new EtcdInput.PollResult(
            p.op(),
            EtcdRecords.first(r.getGetResponses().get(0)),
            r.getHeader().getRevision(),
            EtcdRecords.participants(electionKey, r.getGetResponses().get(1))),
        e -> new EtcdInput.PollFailed(p.op(), reasons.describe(e, "read")),
        () -> poll(p));
  }

  /**
   * handover commits {@code Txn(If ModRevision(K) == token, CreateRevision(P(successor)) ==
   * successor.createRevision, Then Put(K, successor's id, its lease), Put(P(own), id, own lease),
   * Else Get(K))} (PROTOCOL.md §4.5).
   */
  private CompletionStage<Input> handover(EtcdCommand.Handover h) {
    Participant s = h.successor();
    ByteSequence successorId = ByteSequence.from(s.candidateId(), StandardCharsets.UTF_8);
    return map(
        client
            .getKVClient()
            .txn()
            .If(
                new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(h.token())),
                new Cmp(participantKey(s), Cmp.Op.EQUAL,
                    CmpTarget.createRevision(s.createRevision())))
            .Then(
                Op.put(key, successorId, PutOption.builder().withLeaseId(s.leaseId()).build()),
                Op.put(participantKey(h.leaseId()), value,
                    PutOption.builder().withLeaseId(h.leaseId()).build()))
            .Else(Op.get(key, GetOption.DEFAULT))
            .commit(),
        r -> {
          long revision = r.getHeader().getRevision();
          if (r.isSucceeded()) {
            // The key's put is the transaction's, so its new mod revision is this revision.
            return new EtcdInput.HandedOver(h.op(), revision);
          }
          KeyRecord k = r.getGetResponses().isEmpty() ? null : EtcdRecords.first(r.getGetResponses().get(0));
          return new EtcdInput.HandoverRefused(h.op(), k, revision);
        },
        e -> new EtcdInput.HandoverFailed(h.op(), reasons.describe(e, "write")));
  }

  // This candidate's participant key on that lease.
  private ByteSequence participantKey(long leaseId) {
    return ByteSequence.from(Participant.keyOf(electionKey, leaseId, priority), StandardCharsets.UTF_8);
  }

  private ByteSequence participantKey(Participant p) {
    return ByteSequence.from(Participant.keyOf(electionKey, p.leaseId(), p.priority()), StandardCharsets.UTF_8);
  }

}
