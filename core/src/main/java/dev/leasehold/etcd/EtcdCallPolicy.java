package dev.leasehold.etcd;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.Context;
import io.grpc.ForwardingClientCall.SimpleForwardingClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * EtcdCallPolicy is the gRPC interceptor of every jetcd client an elector makes. It does three
 * things:
 *
 * <ul>
 *   <li><b>A deadline.</b> Each call but a watch gets a gRPC deadline of the elector's
 *       {@code rpcTimeout}, unless it was made with one of its own (a cold campaign's grant
 *       and transaction wait longer, PROTOCOL.md §4.4: a deadline in the caller's gRPC {@code
 *       Context}, which reaches the call when the client's executor carries that {@code
 *       Context}, {@link #contextExecutor}). jetcd 0.8.5 cannot cancel a call: cancelling its {@code
 *       CompletableFuture} leaves the gRPC call running, and {@code keepAliveOnce} ends its
 *       stream only when an answer comes. So a call to a blackholed or hung member stayed open
 *       for as long as the member kept the connection, and the elector's renewals piled up
 *       there. With a deadline, gRPC itself cancels the call when its time is up (the stream is
 *       reset, the member's resources freed) and jetcd's future fails with {@code
 *       DEADLINE_EXCEEDED}; the elector stopped waiting for it at the same moment.
 *   <li><b>{@code hasleader}.</b> etcd's metadata that makes a member cut off from its cluster
 *       refuse a call at once ({@code etcdserver: no leader}) instead of holding it until a
 *       leader appears, so the elector's retry or hedge reaches another member sooner.
 *   <li><b>One message per keep-alive.</b> jetcd's {@code keepAliveOnce} writes its request,
 *       and when the answer came writes it once more as it ends the stream ({@code
 *       end(request)}): every renewal renewed the lease twice and cost etcd two messages. Only
 *       the first message of a {@code LeaseKeepAlive} call is sent; the stream still ends.
 * </ul>
 *
 * <p>For a jetcd {@code Client} given to {@code EtcdLeaderElector.Builder.client}, add it with
 * {@code ClientBuilder.interceptor(new EtcdCallPolicy(rpcTimeout))}, and give the client
 * {@code ClientBuilder.executorService(EtcdCallPolicy.contextExecutor(pool))}, when that
 * client serves electors and short calls only: it would end jetcd's own long-lived {@code keepAlive()}
 * streams, which the electors never use, at the deadline and after their first message.
 * Watches are left alone.
 *
 * <p>Immutable and thread-safe.
 */
public final class EtcdCallPolicy implements ClientInterceptor {
  private static final Metadata.Key<String> HAS_LEADER =
      Metadata.Key.of("hasleader", Metadata.ASCII_STRING_MARSHALLER);
  private static final String WATCH = "etcdserverpb.Watch/Watch";
  private static final String KEEP_ALIVE = "etcdserverpb.Lease/LeaseKeepAlive";

  private final long timeoutNanos;

  /**
   * EtcdCallPolicy bounds each call by {@code rpcTimeout}, which must be positive.
   *
   * @param rpcTimeout the deadline each call gets, counted from its start; not null
   * @throws IllegalArgumentException if {@code rpcTimeout} is zero or negative
   */
  public EtcdCallPolicy(Duration rpcTimeout) {
    Objects.requireNonNull(rpcTimeout, "rpcTimeout");
    if (rpcTimeout.isNegative() || rpcTimeout.isZero()) {
      throw new IllegalArgumentException("rpcTimeout must be positive, but was " + rpcTimeout);
    }
    this.timeoutNanos = rpcTimeout.toNanos();
  }

  /**
   * contextExecutor wraps a jetcd client's executor so that each task runs in the gRPC {@code
   * Context} of the thread that submitted it. jetcd submits a call's first attempt from the
   * calling thread, so a deadline the elector gives one call (a cold campaign's grant and
   * transaction, PROTOCOL.md §4.4) reaches it. Without it such a call gets this policy's
   * deadline, as every other call does. Shutting the wrapper down shuts {@code pool} down.
   *
   * @param pool the executor to run jetcd's tasks on; not null
   * @return the wrapper, for {@code ClientBuilder.executorService}
   */
  public static ExecutorService contextExecutor(ExecutorService pool) {
    return new ContextExecutor(pool);
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(
      MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    String name = method.getFullMethodName();
    // A call made with a deadline of its own (CallOptions, or the gRPC Context: CallDeadline) keeps it.
    CallOptions bounded =
        WATCH.equals(name) || options.getDeadline() != null || Context.current().getDeadline() != null
            ? options
            : options.withDeadlineAfter(timeoutNanos, TimeUnit.NANOSECONDS);
    boolean oneMessage = KEEP_ALIVE.equals(name);
    return new SimpleForwardingClientCall<>(next.newCall(method, bounded)) {
      private volatile boolean sent;

      @Override
      public void start(Listener<R> listener, Metadata headers) {
        if (!headers.containsKey(HAS_LEADER)) {
          headers.put(HAS_LEADER, "true");
        }
        super.start(listener, headers);
      }

      @Override
      public void sendMessage(Q message) {
        // The second write comes after the first one was answered, on another thread.
        if (oneMessage && sent) {
          return;
        }
        sent = true;
        super.sendMessage(message);
      }
    };
  }
}
