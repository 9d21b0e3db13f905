package dev.leasehold.micrometer;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderElector;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.Renewal;
import dev.leasehold.Subscription;
import dev.leasehold.select.Backend;
import dev.leasehold.select.FallbackElector;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * LeaseholdMetrics binds one elector's meters to a Micrometer registry. Every meter is tagged
 * {@code backend} (etcd, jdbc, local) and {@code key} (the election key); the names as
 * Prometheus shows them:
 *
 * <table>
 *   <caption>meters</caption>
 *   <tr><th>meter</th><th>type, extra tags</th><th>what</th></tr>
 *   <tr><td>{@code leader_election_total}</td><td>counter, {@code result}</td>
 *       <td>election outcomes of this instance: {@code elected} (it won a term: ELECTED),
 *           {@code lost} (one of its terms ended, whatever ended it: {@link
 *           LeadershipEvent#isLost()}, RESIGNED and CLOSED included; a follower that never led
 *           counts none), {@code failed} (the store failed while it was not leading:
 *           STORE_UNAVAILABLE)</td></tr>
 *   <tr><td>{@code leader_leading}</td><td>gauge</td>
 *       <td>1 while {@link LeaderElector#isLeader()}, else 0</td></tr>
 *   <tr><td>{@code leader_transitions_total}</td><td>counter, {@code cause}</td>
 *       <td>role changes by cause (ELECTED, the loss causes, CLOSED)</td></tr>
 *   <tr><td>{@code leader_renewal_seconds}</td><td>timer, {@code role}</td>
 *       <td>confirmed renewals' round trips ({@link LeaderElector#onRenewal})</td></tr>
 *   <tr><td>{@code leader_renewal_age_seconds}</td><td>gauge</td>
 *       <td>time since the last confirmed renewal was sent; NaN when no lease is held</td></tr>
 *   <tr><td>{@code leader_time_left_seconds}</td><td>gauge</td>
 *       <td>{@link Leadership#timeLeft()} of the current term; 0 when not leading</td></tr>
 *   <tr><td>{@code leader_store_unavailable}</td><td>gauge</td>
 *       <td>1 while the store is unreachable (health), else 0</td></tr>
 *   <tr><td>{@code leader_store_outages_total}</td><td>counter</td>
 *       <td>STORE_UNAVAILABLE events: one per outage</td></tr>
 *   <tr><td>{@code leader_fallback}</td><td>gauge</td>
 *       <td>1 while a fallback is in force ({@code ElectorHealth.fallback()}), else 0</td></tr>
 *   <tr><td>{@code leader_fallbacks_total}</td><td>counter</td>
 *       <td>FALLBACK events: times a fallback came into force</td></tr>
 * </table>
 *
 * <p>Each event is counted under the backend that produced it. For a {@link FallbackElector}
 * every meter exists once per backend of its list: counters and the timer follow the events
 * (after a FALLBACK, the next backend's; after FALLBACK_ENDED, the preferred one's), so a term
 * on the fallback backend is counted there, wherever the binder was bound (Spring binds before
 * {@code start()}). Gauges read the backend active at scrape time under its own tag; the other
 * backends' gauges read 0 (NaN for the renewal age). So {@code leader_election_total{result=
 * "elected"}} minus {@code {result="lost"}}, summed over backends, is {@code leader_leading}.
 *
 * <p>Two electors of one backend and key bound to one registry would share meter ids: give
 * them distinguishing {@code extraTags}. Micrometer is an optional dependency of leasehold-core:
 * this package is the only one that uses it, so an application without Micrometer never loads
 * it. Gauges read the elector at scrape time (no lock, no event-loop work); counters and the
 * timer are updated by listeners on the elector's dispatcher thread.
 *
 * <p>Thread-safe. {@link #bindTo} may be called for several registries; {@link #close()}
 * unsubscribes and removes every meter it registered.
 */
public final class LeaseholdMetrics implements MeterBinder, AutoCloseable {
  private final LeaderElector elector;
  private final Tags extraTags;
  private final List<Bound> bound = new CopyOnWriteArrayList<>();

  /**
   * LeaseholdMetrics will bind the meters of {@code elector}.
   *
   * @param elector the elector to measure; its meters are registered by {@link #bindTo}
   */
  public LeaseholdMetrics(LeaderElector elector) {
    this(elector, Tags.empty());
  }

  /**
   * LeaseholdMetrics will bind the meters of {@code elector} with {@code extraTags} added to
   * every meter: needed only when one registry gets the meters of two electors of the same
   * backend and key (in a test, say), which would otherwise share one meter id.
   *
   * @param elector the elector to measure; its meters are registered by {@link #bindTo}
   * @param extraTags tags added to every meter, for example {@code Tags.of("elector", "a")}
   */
  public LeaseholdMetrics(LeaderElector elector, Iterable<Tag> extraTags) {
    this.elector = Objects.requireNonNull(elector, "elector");
    this.extraTags = Tags.of(Objects.requireNonNull(extraTags, "extraTags"));
  }

  /**
   * bindTo registers the elector's meters with {@code registry} and starts counting.
   *
   * @param registry the registry to register the meters with
   */
  @Override
  public void bindTo(MeterRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    bound.add(new Bound(registry));
  }

  /** close unsubscribes from the elector and removes the meters from every registry; idempotent. */
  @Override
  public void close() {
    for (Bound b : List.copyOf(bound)) {
      b.close();
      bound.remove(b);
    }
  }

  /** backends are the names of the backends the elector can run on, the preferred one first. */
  private List<String> backends() {
    if (elector instanceof FallbackElector f) {
      return f.backends().stream().map(Backend::propertyName).toList();
    }
    return List.of(elector.health().backend());
  }

  /** Bound is the meters of one registry. */
  private final class Bound {
    private final MeterRegistry registry;
    private final List<Meter> meters = new CopyOnWriteArrayList<>();
    private final List<Subscription> subscriptions = new ArrayList<>();
    private final List<Meters> byBackend = new ArrayList<>();
    // The backend (index in byBackend) of the events heard so far: written on the dispatcher,
    // read by the renewal listener, which may run elsewhere.
    private volatile int current;

    Bound(MeterRegistry registry) {
      this.registry = registry;
      Map<String, Meters> seen = new LinkedHashMap<>();
      for (String name : backends()) {
        byBackend.add(seen.computeIfAbsent(name, Meters::new));
      }
      current = Math.max(0, backends().indexOf(elector.health().backend()));
      subscriptions.add(elector.onLeadershipChanged(this::onEvent));
      subscriptions.add(elector.onRenewal(this::onRenewal));
    }

    private <M extends Meter> M keep(M meter) {
      meters.add(meter);
      return meter;
    }

    private void onEvent(LeadershipEvent e) {
      if (e.cause() == Cause.SUBSCRIBED) {
        return;
      }
      // A fallback elector moves to the next backend on FALLBACK and back to the first on
      // FALLBACK_ENDED; every event between two such comes from one backend.
      if (e.cause() == Cause.FALLBACK) {
        current = Math.min(current + 1, byBackend.size() - 1);
      } else if (e.cause() == Cause.FALLBACK_ENDED) {
        current = 0;
      }
      byBackend.get(current).count(e);
    }

    private void onRenewal(Renewal r) {
      byBackend.get(current).renewed(r);
    }

    void close() {
      subscriptions.forEach(Subscription::close);
      for (Meter m : meters) {
        registry.remove(m);
      }
      meters.clear();
    }

    /** Meters is one backend's meters in this registry. */
    private final class Meters {
      private final String backend;
      private final Tags tags;
      private final Map<Cause, Counter> transitions = new ConcurrentHashMap<>();
      private final Map<ElectorState, Timer> timers = new ConcurrentHashMap<>();
      private final Counter elected;
      private final Counter lost;
      private final Counter failed;
      private final Counter outages;
      private final Counter fallbacks;

      Meters(String backend) {
        this.backend = backend;
        this.tags = Tags.of("backend", backend, "key", elector.config().electionKey()).and(extraTags);
        elected = election("elected");
        lost = election("lost");
        failed = election("failed");
        outages = keep(Counter.builder("leader.store.outages")
            .description("Store outages (STORE_UNAVAILABLE events)")
            .tags(tags).register(registry));
        fallbacks = keep(Counter.builder("leader.fallbacks")
            .description("Times a fallback came into force")
            .tags(tags).register(registry));
        gauge("leader.leading", "1 while this instance leads", null, 0,
            e -> e.isLeader() ? 1 : 0);
        gauge("leader.time.left", "Time left to the local deadline of the current term", "seconds", 0,
            e -> e.leadership().map(Leadership::timeLeft).orElse(Duration.ZERO).toNanos() / 1e9);
        gauge("leader.renewal.age", "Time since the last confirmed renewal was sent", "seconds", Double.NaN,
            e -> e.health().sinceRenewal().map(d -> d.toNanos() / 1e9).orElse(Double.NaN));
        gauge("leader.store.unavailable", "1 while the store is unreachable", null, 0,
            e -> e.health().storeReachable() ? 0 : 1);
        gauge("leader.fallback", "1 while a fallback is in force", null, 0,
            e -> e.health().fallback().isPresent() ? 1 : 0);
      }

      private Counter election(String result) {
        return keep(Counter.builder("leader.election")
            .description("Election outcomes of this instance")
            .tags(tags).tag("result", result).register(registry));
      }

      /** gauge reads {@code f} while this backend is the active one, else {@code idle}. */
      private void gauge(
          String name, String help, String unit, double idle, ToDoubleFunction<LeaderElector> f) {
        ToDoubleFunction<LeaderElector> value =
            e -> backend.equals(e.health().backend()) ? f.applyAsDouble(e) : idle;
        keep(Gauge.builder(name, elector, value).description(help).baseUnit(unit).tags(tags)
            .strongReference(true).register(registry));
      }

      void count(LeadershipEvent e) {
        if (e.cause() == Cause.ELECTED) {
          elected.increment();
        }
        if (e.isLost()) {
          lost.increment();
        }
        if (e.cause() == Cause.STORE_UNAVAILABLE) {
          outages.increment();
          if (e.from() != ElectorState.MASTER) {
            failed.increment();
          }
        }
        if (e.cause() == Cause.FALLBACK) {
          fallbacks.increment();
        }
        if (e.from() != e.to()) {
          transitions.computeIfAbsent(e.cause(), c -> keep(Counter.builder("leader.transitions")
              .description("Role changes by cause")
              .tags(tags).tag("cause", c.name()).register(registry)))
              .increment();
        }
      }

      void renewed(Renewal r) {
        timers.computeIfAbsent(r.role(), role -> keep(Timer.builder("leader.renewal")
            .description("Round trip of confirmed lease renewals")
            .tags(tags).tag("role", role.name().toLowerCase(Locale.ROOT))
            .register(registry)))
            .record(r.roundTrip().toNanos(), TimeUnit.NANOSECONDS);
      }
    }
  }
}
