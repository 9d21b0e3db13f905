package dev.leasehold.test;

import dev.leasehold.Guarantee;
import dev.leasehold.etcd.protocol.EtcdCommand;
import dev.leasehold.etcd.protocol.EtcdInput;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.StoreCall;
import dev.leasehold.runtime.StorePort;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * StoreLink is one instance's network path to the store: the local store's port, which a
 * partition of the instance cuts. While cut, requests and replies are lost (the runtime's RPC
 * timeout is what the instance sees, as with a real partition), the instance's watches fail, and
 * new ones fail at once; a reply that arrives after the partition healed is delivered.
 *
 * <p>Not thread-safe: the runtime's loop and the store's loop call it, both on the driving
 * thread of the {@link VirtualTime}.
 */
final class StoreLink implements StorePort {
  static final String PARTITIONED = "partitioned from the store (VirtualFaults.partition)";

  private final StorePort port;
  private final VirtualTime time;
  private final Map<Long, Consumer<Input>> watches = new LinkedHashMap<>();
  private boolean cut;

  StoreLink(StorePort port, VirtualTime time) {
    this.port = port;
    this.time = time;
  }

  /** cut starts a partition: the instance's watches fail, and nothing gets through. */
  void cut() {
    if (cut) {
      return;
    }
    cut = true;
    for (Map.Entry<Long, Consumer<Input>> w : Map.copyOf(watches).entrySet()) {
      fail(w.getKey(), w.getValue());
    }
    watches.clear();
  }

  /** heal ends a partition. */
  void heal() {
    cut = false;
  }

  boolean isCut() {
    return cut;
  }

  @Override
  public Guarantee guarantee() {
    return port.guarantee();
  }

  @Override
  public String backend() {
    return port.backend();
  }

  @Override
  public void open() {
    port.open();
  }

  @Override
  public CompletionStage<? extends Input> call(StoreCall call) {
    return cut ? new CompletableFuture<>() : passReply(port.call(call));
  }

  @Override
  public void send(Command command, Consumer<Input> inbox) {
    if (command instanceof EtcdCommand.Watch w) {
      if (cut) {
        fail(w.watchId(), inbox);
        return;
      }
      watches.put(w.watchId(), inbox);
      port.send(command, input -> {
        if (!cut) {
          inbox.accept(input);
        }
      });
      return;
    }
    if (command instanceof EtcdCommand.CancelWatch c) {
      watches.remove(c.watchId());
    }
    if (!cut) {
      port.send(command, inbox);
    }
  }

  @Override
  public CompletionStage<?> release(long leaseId) {
    return cut ? new CompletableFuture<>() : passReply(port.release(leaseId));
  }

  @Override
  public String describe(Throwable failure) {
    return port.describe(failure);
  }

  @Override
  public void close() {
    port.close();
  }

  /** passReply hands on a reply unless a partition began while it was under way. */
  private <T> CompletionStage<T> passReply(CompletionStage<T> reply) {
    CompletableFuture<T> passed = new CompletableFuture<>();
    reply.whenComplete((v, e) -> {
      if (cut) {
        return;
      }
      if (e != null) {
        passed.completeExceptionally(e);
      } else {
        passed.complete(v);
      }
    });
    return passed;
  }

  /** fail ends a watch the way a broken stream does, at its own event. */
  private void fail(long watchId, Consumer<Input> inbox) {
    time.at(time.nanoTime(), () -> inbox.accept(new EtcdInput.WatchFailed(watchId, false, PARTITIONED)));
  }
}
