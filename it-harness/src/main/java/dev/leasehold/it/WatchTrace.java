package dev.leasehold.it;

import io.etcd.jetcd.api.WatchRequest;
import io.etcd.jetcd.api.WatchResponse;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import java.io.PrintStream;

/**
 * WatchTrace prints what a candidate's watch stream does that the elector does not report: each
 * watch it creates, as {@code WATCH <nanoTime> CREATE <startRevision>}, and each watch etcd
 * cancels because its start revision was compacted, as
 * {@code WATCH <nanoTime> COMPACTED <compactRevision>}. The chaos compaction fault reads them to
 * show that the watch really failed with ErrCompacted and that a new one was opened past the
 * compaction. Thread-safe (one {@link PrintStream}, which is synchronized).
 */
public final class WatchTrace implements ClientInterceptor {
  private final PrintStream out;

  /**
   * WatchTrace prints to {@code out}.
   *
   * @param out the candidate's stdout
   */
  public WatchTrace(PrintStream out) {
    this.out = out;
  }

  /**
   * interceptCall wraps the watch stream's calls; every other call passes untouched.
   *
   * @param method the called method
   * @param options the call's options
   * @param next the channel to call on
   * @param <Q> the request type
   * @param <R> the response type
   * @return the call, traced when it is a watch stream
   */
  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    if (!method.getBareMethodName().equals("Watch")) {
      return next.newCall(method, options);
    }
    return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
      @Override
      public void sendMessage(Q message) {
        if (message instanceof WatchRequest r && r.hasCreateRequest()) {
          out.println("WATCH " + System.nanoTime() + " CREATE " + r.getCreateRequest().getStartRevision());
        }
        super.sendMessage(message);
      }

      @Override
      public void start(Listener<R> listener, Metadata headers) {
        super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
          @Override
          public void onMessage(R message) {
            if (message instanceof WatchResponse r && r.getCompactRevision() != 0) {
              out.println("WATCH " + System.nanoTime() + " COMPACTED " + r.getCompactRevision());
            }
            super.onMessage(message);
          }
        }, headers);
      }
    };
  }
}
