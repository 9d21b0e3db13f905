package dev.leasehold.runtime;

import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipListener;
import dev.leasehold.Subscription;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ListenerBus fans events out to subscriptions, each of which delivers its events one at a
 * time and in order on its own executor.
 *
 * <p>Thread safety: {@link #publish} and {@link #add} are called only from the elector's
 * event loop, so a new subscription's first event (its snapshot) and later events cannot
 * interleave. Delivery never runs on the caller: a subscription's executor is always reached
 * through the dispatcher thread, so even a same-thread executor ({@code Runnable::run}) runs
 * its listener on the dispatcher, not on the event loop.
 */
public final class ListenerBus {
  private static final Logger log = LoggerFactory.getLogger(ListenerBus.class);

  private final CopyOnWriteArrayList<Sub> subs = new CopyOnWriteArrayList<>();
  private final Executor dispatcher;

  /**
   * ListenerBus delivers through {@code dispatcher}, the elector's dispatcher thread.
   *
   * @param dispatcher the executor every subscription's executor is reached through
   */
  public ListenerBus(Executor dispatcher) {
    this.dispatcher = dispatcher;
  }

  Sub newSubscription(LeadershipListener listener, Executor executor) {
    return new Sub(listener, executor);
  }

  /**
   * subscribe adds {@code listener}, delivered on {@code executor}, with {@code snapshot} (the
   * state now, SUBSCRIBED) as its first event. The snapshot is taken and the subscription added
   * on {@code loop}, so the first event and later ones cannot interleave (a task accepted before
   * the loop shuts down still runs). Once the loop is gone the state can no longer change: the
   * listener is told on the calling thread, the only thread left that is not the elector's.
   *
   * @param loop the elector's event loop
   * @param listener the listener, not null
   * @param executor where the listener runs, not null
   * @param snapshot makes the first event from the state on the loop
   * @return the subscription; closing it stops the delivery
   */
  public Subscription subscribe(
      Executor loop, LeadershipListener listener, Executor executor, Supplier<LeadershipEvent> snapshot) {
    Objects.requireNonNull(listener, "listener");
    Objects.requireNonNull(executor, "executor");
    Sub sub = newSubscription(listener, executor);
    try {
      loop.execute(() -> add(sub, snapshot.get()));
    } catch (RejectedExecutionException closedAlready) {
      try {
        listener.onLeadershipChanged(snapshot.get());
      } catch (RuntimeException e) {
        log.error("leadership listener {} threw on its first event", listener, e);
      }
    }
    return sub;
  }

  /** add registers a subscription after enqueueing its snapshot event. */
  void add(Sub sub, LeadershipEvent snapshot) {
    sub.enqueue(snapshot);
    if (!sub.closed.get()) {
      subs.add(sub);
    }
  }

  /**
   * publish hands {@code event} to every subscription, after the events it was given before; called
   * on the event loop only.
   *
   * @param event the event to deliver
   */
  public void publish(LeadershipEvent event) {
    for (Sub s : subs) {
      s.enqueue(event);
    }
  }

  /** Sub is one listener with its own ordered queue; see {@link ListenerBus}. */
  final class Sub implements Subscription {
    private final LeadershipListener listener;
    private final Executor executor;
    private final Queue<LeadershipEvent> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();

    private Sub(LeadershipListener listener, Executor executor) {
      this.listener = listener;
      this.executor = executor;
    }

    void enqueue(LeadershipEvent e) {
      if (closed.get()) {
        return;
      }
      queue.add(e);
      schedule();
    }

    private void schedule() {
      if (scheduled.compareAndSet(false, true)) {
        try {
          if (executor == dispatcher) {
            dispatcher.execute(this::drain);
          } else {
            // Hop through the dispatcher: the caller is the event loop, and the user's
            // executor may run tasks on the calling thread.
            dispatcher.execute(this::handOver);
          }
        } catch (RejectedExecutionException rejected) {
          dropped();
        }
      }
    }

    private void handOver() {
      try {
        executor.execute(this::drain);
      } catch (RejectedExecutionException rejected) {
        dropped();
      }
    }

    private void dropped() {
      scheduled.set(false);
      log.warn("listener executor rejected event delivery; {} event(s) dropped", queue.size());
      queue.clear();
    }

    private void drain() {
      try {
        LeadershipEvent e;
        while ((e = queue.poll()) != null) {
          if (closed.get()) {
            queue.clear();
            return;
          }
          FlightEvents.ListenerCall call = new FlightEvents.ListenerCall();
          if (call.isEnabled()) {
            call.nanoTime = System.nanoTime();
            call.begin();
          }
          try {
            listener.onLeadershipChanged(e);
          } catch (RuntimeException | Error failure) {
            // One listener's failure must not stop its later events or other listeners.
            log.error("leadership listener {} threw on {}", listener, e, failure);
            if (failure instanceof VirtualMachineError vmError) {
              throw vmError;
            }
          } finally {
            if (call.shouldCommit()) {
              call.listener = listener.getClass().getName();
              call.cause = e.cause().name();
              call.commit();
            }
          }
        }
      } finally {
        scheduled.set(false);
        if (!queue.isEmpty()) {
          schedule();
        }
      }
    }

    @Override
    public void close() {
      if (closed.compareAndSet(false, true)) {
        subs.remove(this);
      }
    }
  }
}
