package dev.leasehold.runtime;

import dev.leasehold.ElectorState;
import dev.leasehold.Renewal;
import dev.leasehold.Subscription;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * RenewalListeners hands each confirmed renewal to the {@code onRenewal} listeners on the
 * dispatcher, never on the event loop; one listener's exception does not stop the others.
 *
 * <p>Thread-safe: listeners are added and removed from any thread; {@code report} is called
 * from one thread at a time (the event loop, or an inner elector's dispatcher), and delivery is
 * one dispatcher task per renewal, so listeners see renewals in order.
 */
public final class RenewalListeners {
  private static final Logger log = LoggerFactory.getLogger(RenewalListeners.class);

  private final CopyOnWriteArrayList<Consumer<Renewal>> listeners = new CopyOnWriteArrayList<>();
  private final Executor dispatcher;

  /**
   * RenewalListeners delivers on {@code dispatcher}, the elector's dispatcher thread.
   *
   * @param dispatcher the executor each renewal's delivery runs on
   */
  public RenewalListeners(Executor dispatcher) {
    this.dispatcher = dispatcher;
  }

  /**
   * add subscribes {@code listener} to the renewals reported from now on.
   *
   * @param listener called with each renewal, not null
   * @return the subscription; closing it removes the listener
   */
  public Subscription add(Consumer<Renewal> listener) {
    Objects.requireNonNull(listener, "listener");
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  /** report tells the listeners of a renewal confirmed at {@code now} after {@code roundTrip} ns. */
  void report(ElectorState role, long roundTripNanos, long now) {
    if (!listeners.isEmpty()) {
      report(new Renewal(role, Duration.ofNanos(roundTripNanos), now));
    }
  }

  /**
   * report tells the listeners of {@code r} (an inner elector's renewal, for a fallback elector).
   *
   * @param r the renewal to hand on
   */
  public void report(Renewal r) {
    if (listeners.isEmpty()) {
      return;
    }
    try {
      dispatcher.execute(
          () -> {
            for (Consumer<Renewal> l : listeners) {
              try {
                l.accept(r);
              } catch (RuntimeException e) {
                log.error("renewal listener {} threw on {}", l, r, e);
              }
            }
          });
    } catch (RejectedExecutionException closing) {
      // The dispatcher stopped: nothing is listening any more.
    }
  }
}
