package dev.leasehold.etcd;

import dev.leasehold.Guarantee;
import dev.leasehold.etcd.protocol.EtcdInput;
import dev.leasehold.etcd.protocol.SessionCommand;
import dev.leasehold.etcd.protocol.SessionInput;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.StoreCall;
import dev.leasehold.runtime.StorePort;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * SessionElectionPort is one session election's store port: its key's compare-and-swap and fenced
 * delete on the session's client, and its joining the session's {@link SessionHub}. It owns no
 * lease, no watch and no thread.
 *
 * <p>Not thread-safe: the session's event loop calls it; jetcd completes its futures on its own
 * threads, where it only maps data.
 */
final class SessionElectionPort implements StorePort {
  private final SessionHub hub;
  private final String electionKey;
  private final ByteSequence key;
  private final ByteSequence value;

  SessionElectionPort(SessionHub hub, String electionKey, ByteSequence value) {
    this.hub = hub;
    this.electionKey = electionKey;
    this.key = ByteSequence.from(electionKey, StandardCharsets.UTF_8);
    this.value = value;
  }

  @Override
  public Guarantee guarantee() {
    return Guarantee.DISTRIBUTED;
  }

  @Override
  public void open() {}

  @Override
  public CompletionStage<? extends Input> call(StoreCall call) {
    if (call instanceof SessionCommand.FencedDelete d) {
      return hub.gated(() -> hub.fencedDelete(key, d.token()))
          .handle((r, e) -> e != null
              ? new SessionInput.DeleteFailed(d.op(), hub.describe(e))
              : new SessionInput.Deleted(d.op(), r.isSucceeded(), r.getHeader().getRevision()));
    } else if (call instanceof SessionCommand.Transfer t) {
      return hub.gated(() -> hub.transfer(key, t.token(), t.to()))
          .handle((r, e) -> e != null
              ? new SessionInput.TransferFailed(t.op(), hub.describe(e))
              : new SessionInput.Transferred(t.op(), r.isSucceeded(), r.getHeader().getRevision()));
    } else if (call instanceof SessionCommand.Campaign c) {
      return hub.gated(() -> hub.client().getKVClient().txn()
          .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
          .Then(Op.put(key, value, PutOption.builder().withLeaseId(c.leaseId()).build()))
          .Else(Op.get(key, GetOption.DEFAULT))
          .commit())
          .handle((r, e) -> e != null
              ? new EtcdInput.CampaignFailed(c.op(), hub.describe(e))
              : EtcdRecords.campaignResult(c.op(), r));
    }
    throw new IllegalArgumentException("not a session election's call: " + call);
  }

  @Override
  public void send(Command command, Consumer<Input> inbox) {
    if (command instanceof SessionCommand.Join) {
      hub.join(electionKey, inbox);
    } else if (command instanceof SessionCommand.Leave) {
      hub.leave(electionKey);
    } else if (command instanceof SessionCommand.DeleteLater d) {
      hub.deleteLater(key, d.token());
    } else {
      throw new IllegalArgumentException("not a session election's command: " + command);
    }
  }

  @Override
  public CompletionStage<?> release(long leaseId) {
    // The lease is the session's, released when the session closes.
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public String describe(Throwable failure) {
    return hub.describe(failure);
  }

  @Override
  public void close() {
    hub.leave(electionKey);
  }
}
