package dev.leasehold.spring;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderElector;
import dev.leasehold.LeadershipListener;
import dev.leasehold.Subscription;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * ElectorLifecycle starts the context's elector with the context and closes it on shutdown
 * (which resigns: the lease is revoked, so another instance takes over at once). Before
 * starting it subscribes every {@link LeadershipListener} bean of the context, in their
 * order; each first hears the current state (SUBSCRIBED).
 *
 * <p>Its phase ({@link #PHASE}) is below the web server's and the task scheduler's: the elector
 * starts before them and is closed after them, so the health endpoint answers while it runs
 * and scheduled jobs stop before leadership is given up. Thread-safe.
 */
public final class ElectorLifecycle implements SmartLifecycle {
  /** PHASE is {@code DEFAULT_PHASE - 4096}, below the web server's graceful shutdown and the task scheduler. */
  public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

  private static final Logger log = LoggerFactory.getLogger(ElectorLifecycle.class);
  private static final long STOPPED_EVENT_WAIT_SECONDS = 5;

  private final LeaderElector elector;
  private final List<LeadershipListener> listeners;
  private final List<Subscription> subscriptions = new ArrayList<>();
  private final CompletableFuture<Void> stoppedSeen = new CompletableFuture<>();
  private boolean running;

  /**
   * ElectorLifecycle manages {@code elector} and subscribes {@code listeners} at start.
   *
   * @param elector the elector to start and close
   * @param listeners the listeners to subscribe, in order
   */
  public ElectorLifecycle(LeaderElector elector, List<LeadershipListener> listeners) {
    this.elector = elector;
    this.listeners = List.copyOf(listeners);
  }

  @Override
  public synchronized void start() {
    if (running) {
      return;
    }
    for (LeadershipListener l : listeners) {
      subscriptions.add(elector.onLeadershipChanged(l));
    }
    // Subscribed last, so once it hears STOPPED every listener above has had it.
    subscriptions.add(
        elector.onLeadershipChanged(
            e -> {
              if (e.to() == ElectorState.STOPPED) {
                stoppedSeen.complete(null);
              }
            }));
    elector.start();
    running = true;
    log.info("leasehold elector started: {}", elector.config());
  }

  @Override
  public void stop() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    stop(() -> done.complete(null));
    done.join();
  }

  @Override
  public synchronized void stop(Runnable callback) {
    if (!running) {
      callback.run();
      return;
    }
    running = false;
    elector
        .closeAsync()
        .toCompletableFuture()
        // The CLOSED event reaches listeners on the dispatcher after the close: publish it while
        // the context's beans are still alive.
        .thenCompose(v -> stoppedSeen.completeOnTimeout(null, STOPPED_EVENT_WAIT_SECONDS, TimeUnit.SECONDS))
        .whenComplete(
            (v, e) -> {
              synchronized (this) {
                subscriptions.forEach(Subscription::close);
                subscriptions.clear();
              }
              // No claim about the lease here: core logs "could not release lease ...; lease left
              // to expire in <= TTL" when the store did not confirm the release.
              log.info("leasehold elector closed");
              callback.run();
            });
  }

  @Override
  public synchronized boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }
}
