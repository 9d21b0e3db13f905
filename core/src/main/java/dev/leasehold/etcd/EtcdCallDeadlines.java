package dev.leasehold.etcd;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall.SimpleForwardingClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * EtcdCallDeadlines is the gRPC interceptor of every jetcd client an elector makes: it gives each
 * call but a watch a gRPC deadline of the elector's {@code rpcTimeout}, and asks etcd to answer
 * at once when the member has no leader (etcd's {@code hasleader} metadata).
 *
 * <p>Why. jetcd 0.8.5 cannot cancel a call: cancelling its {@code CompletableFuture} leaves the
 * gRPC call running, and {@code keepAliveOnce} ends its stream only when an answer comes. So a
 * call to a blackholed or hung member stayed open for as long as the member kept the
 * connection, and the elector's renewals (a keep-alive stream and a read every few hundred
 * milliseconds) piled up there. With a deadline, gRPC itself cancels the call when its time is
 * up (the stream is reset, the member's resources freed) and jetcd's future fails with
 * {@code DEADLINE_EXCEEDED}; the elector stopped waiting for it at the same moment.
 *
 * <p>With {@code hasleader}, a member cut off from its cluster refuses a call at once
 * ({@code etcdserver: no leader}) instead of holding it until a leader appears, so the
 * elector's retry or hedge reaches another member sooner.
 *
 * <p>For a jetcd {@code Client} given to {@code EtcdLeaderElector.Builder.client}, add it with
 * {@code ClientBuilder.interceptor(new EtcdCallDeadlines(rpcTimeout))} when that client serves
 * electors and short calls only: it would also end jetcd's own long-lived {@code keepAlive()}
 * streams at the deadline, which the electors never use. Watches are left alone.
 *
 * <p>Immutable and thread-safe.
 */
public final class EtcdCallDeadlines implements ClientInterceptor {
  private static final Metadata.Key<String> HAS_LEADER =
      Metadata.Key.of("hasleader", Metadata.ASCII_STRING_MARSHALLER);
  private static final String WATCH = "etcdserverpb.Watch/Watch";

  private final long timeoutNanos;

  /** EtcdCallDeadlines bounds each call by {@code rpcTimeout}, which must be positive. */
  public EtcdCallDeadlines(Duration rpcTimeout) {
    Objects.requireNonNull(rpcTimeout, "rpcTimeout");
    if (rpcTimeout.isNegative() || rpcTimeout.isZero()) {
      throw new IllegalArgumentException("rpcTimeout must be positive, but was " + rpcTimeout);
    }
    this.timeoutNanos = rpcTimeout.toNanos();
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(
      MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    CallOptions bounded =
        WATCH.equals(method.getFullMethodName()) || options.getDeadline() != null
            ? options
            : options.withDeadlineAfter(timeoutNanos, TimeUnit.NANOSECONDS);
    return new SimpleForwardingClientCall<>(next.newCall(method, bounded)) {
      @Override
      public void start(Listener<R> listener, Metadata headers) {
        if (!headers.containsKey(HAS_LEADER)) {
          headers.put(HAS_LEADER, "true");
        }
        super.start(listener, headers);
      }
    };
  }
}
