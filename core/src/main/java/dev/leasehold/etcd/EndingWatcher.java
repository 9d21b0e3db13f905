package dev.leasehold.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import io.grpc.Context;

/**
 * EndingWatcher is a jetcd watcher whose gRPC stream ends when it is closed.
 *
 * <p>jetcd 0.8.5's {@code Watcher.close()} sends a cancel request and half-closes its stream.
 * etcd 3.4 then cancels the watcher but keeps the stream open until the client cancels the call,
 * and the client keeps the stream with its handlers, the listener and everything the listener
 * reaches (a closed elector's whole runtime) until the client itself closes. On a client shared
 * by many electors, or across an elector's many watches, every closed watcher so stayed: 150
 * electors started and closed on one client left 168 open watch streams in etcd and 150 runtimes
 * in the heap.
 *
 * <p>So the watcher is opened inside a cancellable gRPC {@link Context}: jetcd 0.8.5 starts a
 * watcher's call on the calling thread, where the call binds to that context, and closing
 * cancels it after jetcd's own close, which ends the stream on both sides. A stream that jetcd
 * opens again by itself after an error (its resume, on its own thread, 500 ms later) is not
 * bound; the watch's owner closes a failed watcher before that (the machine's next watch).
 *
 * <p>Thread-safe: jetcd's watcher is, and a context's cancellation is.
 */
final class EndingWatcher implements Watch.Watcher {
  private final Watch.Watcher watcher;
  private final Context.CancellableContext call;

  private EndingWatcher(Watch.Watcher watcher, Context.CancellableContext call) {
    this.watcher = watcher;
    this.call = call;
  }

  /**
   * open starts a watcher on {@code client} as {@link Watch#watch(ByteSequence, WatchOption,
   * Watch.Listener)} does, in a context of its own.
   *
   * @param client the client to watch on
   * @param key the key or the start of the range
   * @param option the watch's options
   * @param listener where jetcd reports, on its threads
   * @return the watcher; closing it ends its stream
   */
  static EndingWatcher open(Client client, ByteSequence key, WatchOption option, Watch.Listener listener) {
    Context.CancellableContext call = Context.current().withCancellation();
    Context previous = call.attach();
    try {
      return new EndingWatcher(client.getWatchClient().watch(key, option, listener), call);
    } catch (RuntimeException closedClient) {
      call.cancel(closedClient);
      throw closedClient;
    } finally {
      call.detach(previous);
    }
  }

  @Override
  public void close() {
    try {
      watcher.close();
    } finally {
      call.cancel(null);
    }
  }

  @Override
  public boolean isClosed() {
    return watcher.isClosed();
  }

  @Override
  public void requestProgress() {
    watcher.requestProgress();
  }
}
