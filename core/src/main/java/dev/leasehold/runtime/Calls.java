package dev.leasehold.runtime;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * Calls sends the machine's {@link StoreCall}s: each reaches the machine as an input once in
 * time, its reply, the port's failure or, after its timeout ({@link StoreCall#timeoutNanos}),
 * {@link StoreCall#failed}; a
 * reply that comes after its timeout is handed over too, late. It also tells the close
 * sequence when no call is left in flight and no timed-out call is still unanswered, waiting
 * for the latter at most one RPC timeout: a grant answered late must still reach the machine,
 * which releases its lease, before the loop stops. A call that waits longer than the RPC
 * timeout on purpose (a cold campaign's, SQL's lock wait) is given up when the close begins,
 * and its answer then awaited as a timed-out call's is: one RPC timeout at most.
 *
 * <p>Not thread-safe: confined to the runtime's event loop (replies only enqueue on it).
 */
final class Calls {
  private final String elector;
  private final StorePort store;
  private final Scheduler scheduler;
  private final long rpcTimeoutNanos;
  private final Consumer<Input> handler;
  private int inFlight;
  // The calls in flight, so that a close can bound the ones that wait longer than the RPC timeout.
  private final Set<Pending> pendings = new HashSet<>();
  // Calls that timed out and have not been answered yet (a late grant still creates a lease).
  private int late;
  private Runnable whenNone;
  // The close went on past the calls: a reply that comes now has nobody to hand it to.
  private boolean drained;
  private Scheduler.Cancellable lateBound;

  Calls(String elector, StorePort store, Scheduler scheduler, long rpcTimeoutNanos, Consumer<Input> handler) {
    this.elector = elector;
    this.store = store;
    this.scheduler = scheduler;
    this.rpcTimeoutNanos = rpcTimeoutNanos;
    this.handler = handler;
  }

  /** send starts one call; its outcome is handed to the machine on the loop. */
  void send(StoreCall call) {
    inFlight++;
    Pending pending = new Pending(call);
    pendings.add(pending);
    long timeoutNanos = call.timeoutNanos(rpcTimeoutNanos);
    pending.dueAt = scheduler.nanoTime() + timeoutNanos;
    String timedOut = "timed out after " + timeoutNanos / 1_000_000 + " ms";
    pending.timeout =
        scheduler.schedule(() -> pending.settle(call.failed(timedOut), false), timeoutNanos);
    StoreCallEvent event = StoreCallEvent.sent(elector, call.getClass().getSimpleName());
    CompletionStage<? extends Input> reply;
    try {
      reply = store.call(call);
    } catch (RuntimeException e) {
      reply = CompletableFuture.failedFuture(e);
    }
    reply.whenComplete(
        (in, e) -> {
          // Runs on a store thread: hand the outcome to the loop.
          Input result = e == null && in != null ? in : call.failed(store.describe(e));
          event.answered(result instanceof Input.Failed f ? f.reason() : null);
          try {
            scheduler.execute(() -> pending.settle(result, true));
          } catch (RejectedExecutionException closedAlready) {
            // The loop stopped after the calls drained; nothing waits for this one.
          }
        });
  }

  /**
   * afterAll runs {@code next} once no call is in flight and no timed-out call is unanswered (at
   * once if none is); it waits for unanswered ones at most one RPC timeout after the last call
   * in flight ended, since their replies may never come. A call in flight that would wait more
   * than one RPC timeout from now is given up at once, and counts as timed out.
   */
  void afterAll(Runnable next) {
    whenNone = next;
    long now = scheduler.nanoTime();
    for (Pending p : List.copyOf(pendings)) {
      if (p.dueAt - now > rpcTimeoutNanos) {
        // Waiting longer than the RPC timeout on purpose: given up now, its answer awaited as a
        // timed-out call's is.
        p.settle(p.call.failed("given up at close"), false);
      }
    }
    maybeDone();
  }

  private void maybeDone() {
    if (whenNone == null || inFlight > 0) {
      return;
    }
    if (late == 0) {
      runWhenNone();
    } else if (lateBound == null) {
      lateBound = scheduler.schedule(this::runWhenNone, rpcTimeoutNanos);
    }
  }

  private void runWhenNone() {
    if (whenNone != null) {
      Runnable next = whenNone;
      whenNone = null;
      drained = true;
      if (lateBound != null) {
        lateBound.cancel();
      }
      next.run();
    }
  }

  /** Pending is one call in flight. */
  private final class Pending {
    final StoreCall call;
    long dueAt;
    Scheduler.Cancellable timeout;
    boolean settled;
    boolean timedOut;

    Pending(StoreCall call) {
      this.call = call;
    }

    void settle(Input result, boolean reply) {
      if (settled) {
        // A reply after its timeout still reaches the machine, which ignores what it no
        // longer waits for and releases a late grant (a lease nobody would renew).
        if (reply && timedOut) {
          timedOut = false;
          late--;
          if (drained) {
            // The close stopped waiting for it (one RPC timeout): the machine and the loop are
            // done, and a lease this reply made is left to expire within its TTL.
            return;
          }
          handler.accept(result);
          maybeDone();
        }
        return;
      }
      settled = true;
      timeout.cancel();
      pendings.remove(this);
      inFlight--;
      if (!reply) {
        timedOut = true;
        late++;
      }
      handler.accept(result);
      maybeDone();
    }
  }
}
