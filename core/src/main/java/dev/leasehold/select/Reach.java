package dev.leasehold.select;

import dev.leasehold.LeaderElector;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.ElectorState;
import dev.leasehold.runtime.Scheduler;
import java.util.Locale;

/**
 * Reach decides when a {@link FallbackRuntime} switches backend. It tracks how long the active
 * elector's store has been unreachable (from its STORE_UNAVAILABLE to its STORE_RECOVERED, an
 * ELECTED or a LEADER_CHANGED) and falls back once that lasted {@code fallbackAfter} and
 * listeners were not last told MASTER (a loss re-checks). Under FALL_BACK_AND_RETURN, while a
 * fallback is in force, it runs a probe elector on the preferred backend's probe key and returns
 * once the probe has reached its store (ELECTED, LEADER_CHANGED or STORE_RECOVERED, and no
 * STORE_UNAVAILABLE since) for {@code returnAfter}.
 *
 * <p>Not thread-safe: confined to the runtime's event loop; probe events are delivered onto it.
 */
final class Reach {
  private final FallbackRuntime rt;
  private long outageSince = -1;
  private String outageReason;
  private Scheduler.Cancellable fallbackTimer;
  private LeaderElector probe;
  private long reachableSince = -1;
  private Scheduler.Cancellable returnTimer;

  Reach(FallbackRuntime rt) {
    this.rt = rt;
  }

  /** activated resets the outage for a newly active tier and starts or stops the probe. */
  void activated(int tier) {
    outageSince = -1;
    outageReason = null;
    fallbackTimer = cancel(fallbackTimer);
    if (tier == 0) {
      stopProbe();
    } else if (rt.policy == FallbackPolicy.FALL_BACK_AND_RETURN) {
      startProbe();
    }
  }

  /** observed follows an event of the active elector. */
  void observed(LeadershipEvent e) {
    switch (e.cause()) {
      case STORE_UNAVAILABLE -> unreachable(rt.scheduler.nanoTime(), e.reason().orElse("unknown"));
      case STORE_RECOVERED, ELECTED, LEADER_CHANGED -> {
        outageSince = -1;
        fallbackTimer = cancel(fallbackTimer);
      }
      default -> { }
    }
    if (e.isLost()) {
      maybeFallBack();
    }
  }

  /** unreachable opens an outage of the active tier, unless one is open. */
  void unreachable(long now, String reason) {
    if (outageSince >= 0) {
      return;
    }
    outageSince = now;
    outageReason = reason;
    if (rt.policy != FallbackPolicy.FAIL_CLOSED && rt.activeIndex() + 1 < rt.tiers.size()) {
      fallbackTimer = arm(fallbackTimer, this::maybeFallBack, rt.fallbackAfterNanos);
    }
  }

  private void maybeFallBack() {
    int next = rt.activeIndex() + 1;
    if (rt.policy == FallbackPolicy.FAIL_CLOSED || outageSince < 0 || rt.switching()
        || next >= rt.tiers.size()) {
      return;
    }
    long waited = rt.scheduler.nanoTime() - outageSince;
    if (waited < rt.fallbackAfterNanos) {
      fallbackTimer = arm(fallbackTimer, this::maybeFallBack, rt.fallbackAfterNanos - waited);
      return;
    }
    if (rt.toldRole() == ElectorState.MASTER) {
      return; // the term ends by its deadline; its loss calls back here
    }
    String from = rt.tiers.get(next - 1).backend().propertyName();
    String to = rt.tiers.get(next).backend().propertyName();
    rt.beginSwitch(next, Cause.FALLBACK, "from " + from + " to " + to + ": " + from
        + " unreachable for " + seconds(waited) + " (" + outageReason + ")");
  }

  private void startProbe() {
    BackendTier preferred = rt.tiers.get(0);
    if (probe != null || preferred.probe() == null) {
      return;
    }
    LeaderElector p;
    try {
      p = preferred.probe().get();
    } catch (RuntimeException e) {
      org.slf4j.LoggerFactory.getLogger(FallbackRuntime.class)
          .error("{}: could not build the probe of {}; no return", rt.name,
              preferred.backend().propertyName(), e);
      return;
    }
    probe = p;
    reachableSince = -1;
    p.onLeadershipChanged(e -> onProbe(p, e), rt::execute);
    p.start();
  }

  private void onProbe(LeaderElector source, LeadershipEvent e) {
    if (source != probe) {
      return;
    }
    switch (e.cause()) {
      case STORE_UNAVAILABLE -> {
        reachableSince = -1;
        returnTimer = cancel(returnTimer);
      }
      case ELECTED, LEADER_CHANGED, STORE_RECOVERED -> {
        if (reachableSince < 0) {
          reachableSince = rt.scheduler.nanoTime();
          returnTimer = arm(returnTimer, this::maybeReturn, rt.returnAfterNanos);
        }
      }
      default -> { }
    }
  }

  private void maybeReturn() {
    if (probe == null || reachableSince < 0 || rt.switching() || rt.activeIndex() == 0) {
      return;
    }
    long waited = rt.scheduler.nanoTime() - reachableSince;
    if (waited < rt.returnAfterNanos) {
      returnTimer = arm(returnTimer, this::maybeReturn, rt.returnAfterNanos - waited);
      return;
    }
    String preferred = rt.tiers.get(0).backend().propertyName();
    String from = rt.tiers.get(rt.activeIndex()).backend().propertyName();
    stopProbe();
    rt.beginSwitch(0, Cause.FALLBACK_ENDED, "from " + from + " to " + preferred + ": " + preferred
        + " answered again for " + seconds(waited));
  }

  private void stopProbe() {
    returnTimer = cancel(returnTimer);
    reachableSince = -1;
    if (probe != null) {
      probe.closeAsync();
      probe = null;
    }
  }

  /** stop cancels the timers and closes the probe; for the composite's close. */
  void stop() {
    fallbackTimer = cancel(fallbackTimer);
    stopProbe();
  }

  private Scheduler.Cancellable arm(Scheduler.Cancellable old, Runnable task, long delayNanos) {
    cancel(old);
    try {
      return rt.scheduler.schedule(task, delayNanos);
    } catch (java.util.concurrent.RejectedExecutionException stopped) {
      return null;
    }
  }

  private static Scheduler.Cancellable cancel(Scheduler.Cancellable t) {
    if (t != null) {
      t.cancel();
    }
    return null;
  }

  private static String seconds(long nanos) {
    return String.format(Locale.ROOT, "%.1fs", nanos / 1e9);
  }
}
