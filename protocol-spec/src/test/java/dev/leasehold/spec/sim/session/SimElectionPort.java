package dev.leasehold.spec.sim.session;

import dev.leasehold.Guarantee;
import dev.leasehold.etcd.protocol.SessionCommand;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.StoreCall;
import dev.leasehold.runtime.StorePort;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * SimElectionPort is one session election's store port on the simulated etcd, doing what
 * {@code SessionElectionPort} does: its key's compare-and-swap and fenced delete, and its joining and
 * leaving the process's {@link SimHub}. It owns no lease, no watch and no thread.
 *
 * <p>Not thread-safe: the simulation's one thread calls it.
 */
final class SimElectionPort implements StorePort {
  private final SimHub hub;
  private final String key;

  SimElectionPort(SimHub hub, String key) {
    this.hub = hub;
    this.key = key;
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
      return hub.fencedDelete(d.op(), key, d.token());
    } else if (call instanceof SessionCommand.Transfer t) {
      return hub.transfer(t.op(), key, t.token(), t.to());
    } else if (call instanceof SessionCommand.Campaign c) {
      return hub.campaign(c.op(), key, c.leaseId());
    }
    throw new IllegalArgumentException("not a session election's call: " + call);
  }

  @Override
  public void send(Command command, Consumer<Input> inbox) {
    if (hub.dead) {
      return;
    }
    if (command instanceof SessionCommand.Join) {
      hub.join(key, inbox);
    } else if (command instanceof SessionCommand.Leave) {
      hub.leave(key);
    } else if (command instanceof SessionCommand.DeleteLater d) {
      hub.deleteLater(key, d.token());
    } else {
      throw new IllegalArgumentException("not a session election's command: " + command);
    }
  }

  @Override
  public CompletionStage<?> release(long leaseId) {
    return CompletableFuture.completedFuture(null); // the lease is the session's
  }

  @Override
  public String describe(Throwable failure) {
    return hub.describe(failure);
  }

  @Override
  public void close() {
    hub.leave(key);
  }
}
