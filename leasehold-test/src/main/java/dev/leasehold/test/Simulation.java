package dev.leasehold.test;

import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * Simulation runs the user's leader-only code on a few simulated instances, each a real
 * elector on one {@link VirtualStore}, through many seeded schedules of faults and delays, and
 * checks every run: by default, that no unfenced write to the {@link SimulatedResource} lands
 * outside its term (the leader-only sections of two terms never overlap), plus any invariant
 * the setup adds ({@link Schedule#invariant}), and that no simulated thread of the user's
 * ({@link LeaderContext#thread}) ends by an exception. The first failing schedule ends the run
 * with a {@link SimulationFailure} that names its seed, a replay command and the run's history,
 * in which the electors' own warnings appear in order (they do not go to the test's log).
 *
 * <p>Each schedule: the instances start within the first 500 ms; from 2 s on, one to four
 * faults of the allowed kinds ({@link Fault}) strike at random times, with random lengths up
 * to three TTLs; the electors' timers and threads run late at random as real ones do; the run
 * lasts {@link Builder#duration}. Everything random comes from the schedule's seed, so a seed
 * replays its run exactly.
 *
 * <p>System properties: {@code leasehold.simulation.seed} runs that one schedule (the replay);
 * {@code leasehold.simulation.schedules} overrides the number of schedules (for longer runs
 * outside the default build).
 *
 * <p>Immutable and thread-safe; each {@link #run} runs on the calling thread.
 */
public final class Simulation {
  /** SEED_PROPERTY replays one schedule: {@code -Dleasehold.simulation.seed=<seed>}. */
  public static final String SEED_PROPERTY = "leasehold.simulation.seed";
  /** SCHEDULES_PROPERTY overrides the number of schedules: {@code -Dleasehold.simulation.schedules=<n>}. */
  public static final String SCHEDULES_PROPERTY = "leasehold.simulation.schedules";
  /** KEY is the election key the simulated instances share. */
  public static final String KEY = "/leasehold/simulation";

  private static final long S = 1_000_000_000L;
  private static final int HISTORY_LINES = 60;

  private final int instances;
  private final int schedules;
  private final long seed;
  private final Duration duration;
  private final Set<Fault> faults;
  private final boolean checkOverlap;
  private final Consumer<VirtualElector.Builder> electors;
  private final String replay;
  private final Long only;

  private Simulation(Builder b) {
    this.instances = b.instances;
    this.schedules = b.schedules;
    this.seed = b.seed;
    this.duration = b.duration;
    this.faults = b.faults.isEmpty() ? Set.of() : EnumSet.copyOf(b.faults);
    this.checkOverlap = b.checkOverlap;
    this.electors = b.electors;
    this.replay = b.replay;
    this.only = b.only;
  }

  /**
   * builder starts configuring a simulation: 3 instances, 1,000 schedules of 30 s, seed 1.
   *
   * @return a builder with the defaults
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Result is what a passing run did, for the test's report. */
  public record Result(int schedules, long seed, Duration realTime, long terms, long writes) {}

  /**
   * run runs the schedules; {@code setup} installs the user's code on each schedule's instances
   * before their electors start.
   *
    * @param setup called once per schedule, before the electors start, to install the user's code and invariants
    * @return what the run did, when every schedule passed
   * @throws SimulationFailure at the first schedule that breaks a check
   */
  public Result run(Consumer<Schedule> setup) {
    Objects.requireNonNull(setup, "setup");
    long started = System.nanoTime();
    String replaySeed = System.getProperty(SEED_PROPERTY);
    List<Long> seeds = new ArrayList<>();
    if (only != null) {
      seeds.add(only);
    } else if (replaySeed != null && !replaySeed.isBlank()) {
      try {
        seeds.add(Long.parseLong(replaySeed.trim()));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(SEED_PROPERTY + " must be a long, but was '" + replaySeed + "'");
      }
    } else {
      SplittableRandom base = new SplittableRandom(seed);
      int n = Integer.getInteger(SCHEDULES_PROPERTY, schedules);
      for (int i = 0; i < n; i++) {
        seeds.add(base.nextLong());
      }
    }
    long terms = 0;
    long writes = 0;
    for (int i = 0; i < seeds.size(); i++) {
      Run r = new Run(seeds.get(i));
      r.go(setup, i, seeds.size());
      terms += r.terms;
      writes += r.resource.writes().size();
    }
    return new Result(seeds.size(), seed, Duration.ofNanos(System.nanoTime() - started), terms, writes);
  }

  /** Run is one schedule. */
  private final class Run {
    final long runSeed;
    final VirtualTime time;
    final VirtualStore store;
    final History history;
    final SimulatedResource resource;
    final List<VirtualElector> electors = new ArrayList<>();
    long terms;

    Run(long runSeed) {
      this.runSeed = runSeed;
      this.time = VirtualTime.seeded(runSeed);
      this.store = VirtualStore.create(time);
      this.history = new History(time, HISTORY_LINES);
      this.resource = new SimulatedResource(store, history, checkOverlap);
    }

    void go(Consumer<Schedule> setup, int index, int count) {
      List<LeaderContext> contexts = new ArrayList<>();
      for (int i = 1; i <= instances; i++) {
        VirtualElector.Builder b = store.elector().electionKey(KEY).candidateId("i" + i);
        Simulation.this.electors.accept(b);
        String id = "i" + i;
        VirtualElector e = b.log(new HistoryLog(history, id, id + "@" + KEY)).build();
        electors.add(e);
        contexts.add(new LeaderContext(e, resource, history));
      }
      Schedule schedule = new Schedule(runSeed, contexts, resource, time, history);
      setup.accept(schedule);
      for (VirtualElector e : electors) {
        String id = e.config().candidateId();
        e.onLeadershipChanged(ev -> record(id, ev));
      }
      // The plan draws from its own stream, so what the code under test draws does not move it.
      SplittableRandom plan = new SplittableRandom(~runSeed);
      for (VirtualElector e : electors) {
        time.at(plan.nextLong(500_000_000L), e::start);
      }
      planFaults(plan);
      String failure;
      try {
        failure = runChecked(schedule);
      } catch (RuntimeException stopped) {
        // A simulated thread that blocked outside the kit: the run cannot go on.
        failure = "the run stopped: " + stopped.getMessage();
      } finally {
        for (VirtualElector e : electors) {
          e.endThreads();
        }
      }
      if (failure != null) {
        throw new SimulationFailure(failure, index, count, runSeed,
            replay + " -D" + SEED_PROPERTY + "=" + runSeed, history.lines(), history.count());
      }
    }

    /** runChecked runs the schedule, checking after every event, and returns the first failure or null. */
    private String runChecked(Schedule schedule) {
      String[] failure = new String[1];
      time.runUntil(() -> {
        String v = resource.violation();
        if (v == null) {
          String broken = schedule.broken();
          v = broken == null ? null : "invariant '" + broken + "' does not hold";
        }
        if (v == null) {
          v = threadFailure();
        }
        failure[0] = v;
        return v != null;
      }, duration);
      return failure[0];
    }

    private String threadFailure() {
      for (VirtualElector e : electors) {
        String f = e.threadFailure();
        if (f != null) {
          return f;
        }
      }
      return null;
    }

    private void record(String id, LeadershipEvent ev) {
      if (ev.cause() == Cause.SUBSCRIBED) {
        return;
      }
      if (ev.isElected()) {
        terms++;
      }
      history.add(id, ev.from() + " -> " + ev.to() + " " + ev.cause()
          + ev.fencingToken().stream().mapToObj(t -> " (token " + t + ")").findFirst().orElse("")
          + ev.reason().map(r -> ": " + r).orElse(""));
    }

    private void planFaults(SplittableRandom plan) {
      if (faults.isEmpty()) {
        return;
      }
      Fault[] kinds = faults.toArray(new Fault[0]);
      long ttl = electors.get(0).config().leaseTtl().toNanos();
      double maxDrift = electors.get(0).config().maxDriftRate();
      long window = Math.max(1, duration.toNanos() - 6 * S);
      int count = 1 + plan.nextInt(4);
      for (int f = 0; f < count; f++) {
        long at = 2 * S + plan.nextLong(window);
        Fault kind = kinds[plan.nextInt(kinds.length)];
        VirtualElector target = electors.get(plan.nextInt(electors.size()));
        Duration length = Duration.ofNanos(ttl / 5 + plan.nextLong(3 * ttl));
        double rate = 1 - 0.9 * maxDrift + plan.nextDouble() * (0.05 + 0.9 * maxDrift);
        time.at(at, () -> inject(kind, target, length, rate));
      }
    }

    private void inject(Fault kind, VirtualElector target, Duration length, double rate) {
      VirtualFaults f = store.faults();
      String who = target.config().candidateId();
      switch (kind) {
        case OUTAGE -> {
          history.add("store", "fault: outage for " + length.toMillis() + " ms");
          f.outage(length);
        }
        case PARTITION -> {
          history.add(who, "fault: partitioned from the store for " + length.toMillis() + " ms");
          f.partition(target, length);
        }
        case PAUSE -> {
          history.add(who, "fault: paused for " + length.toMillis() + " ms");
          f.pause(target, length);
        }
        case DRIFT -> {
          history.add(who, String.format("fault: clock runs at %.4f", rate));
          f.drift(target, rate);
        }
        case EXPIRE_LEASE -> history.add("store", "fault: leader's lease expired by the operator: "
            + (f.expireLease(KEY) ? "done" : "no leader"));
        case DELETE_KEY -> history.add("store", "fault: election key deleted by the operator: "
            + (f.deleteKey(KEY) ? "done" : "no key"));
      }
    }
  }

  /**
   * Builder configures a {@link Simulation}; {@link #build()} checks each setting and names the
   * bad one.
   *
   * <p>Not thread-safe.
   */
  public static final class Builder {
    private int instances = 3;
    private int schedules = 1000;
    private long seed = 1;
    private Duration duration = Duration.ofSeconds(30);
    private Set<Fault> faults = EnumSet.of(Fault.OUTAGE, Fault.PARTITION, Fault.PAUSE, Fault.DRIFT);
    private boolean checkOverlap = true;
    private Consumer<VirtualElector.Builder> electors = b -> b.leaseTtl(Duration.ofSeconds(2));
    private String replay = "mvn test";
    private Long only;

    private Builder() {}

    /**
     * instances is the number of simulated instances (default 3, at least 1).
     *
     * @param instances how many instances each schedule simulates
     * @return this builder
     */
    public Builder instances(int instances) {
      this.instances = instances;
      return this;
    }

    /**
     * schedules is the number of seeded schedules to run (default 1,000, at least 1).
     *
     * @param schedules how many schedules to run
     * @return this builder
     */
    public Builder schedules(int schedules) {
      this.schedules = schedules;
      return this;
    }

    /**
     * seed is the seed the schedules' seeds are drawn from (default 1: the same schedules every build).
     *
     * @param seed the master seed; the same seed gives the same schedules
     * @return this builder
     */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /**
     * duration is the virtual time each schedule runs (default 30 s, at least 10 s).
     *
     * @param duration the virtual time of one schedule
     * @return this builder
     */
    public Builder duration(Duration duration) {
      this.duration = duration;
      return this;
    }

    /**
     * faults are the kinds of fault a schedule may contain (default: OUTAGE, PARTITION, PAUSE, DRIFT; none for none).
     *
     * @param faults the fault kinds; none for a run without faults
     * @return this builder
     */
    public Builder faults(Fault... faults) {
      this.faults = faults.length == 0 ? EnumSet.noneOf(Fault.class) : EnumSet.copyOf(List.of(faults));
      return this;
    }

    /**
     * checkOverlap turns the default check off or on (default on): an unfenced write outside its
     * term fails the run. Off, only the setup's invariants are checked.
      *
      * @param checkOverlap false to turn the default check off
      * @return this builder
     */
    public Builder checkOverlap(boolean checkOverlap) {
      this.checkOverlap = checkOverlap;
      return this;
    }

    /**
     * electors applies settings to every instance's elector (default: a lease TTL of 2 s); the
     * simulation sets the key and the candidate ids first.
      *
      * @param settings applied to each elector's builder, for example to set a TTL
      * @return this builder
     */
    public Builder electors(Consumer<VirtualElector.Builder> settings) {
      this.electors = Objects.requireNonNull(settings, "electors");
      return this;
    }

    /**
     * replayCommand is the command a failure prints before {@code -Dleasehold.simulation.seed=...}.
     *
     * @param command the command, for example {@code mvn test -Dtest=MyTest}
     * @return this builder
     */
    public Builder replayCommand(String command) {
      this.replay = Objects.requireNonNull(command, "replayCommand");
      return this;
    }

    /**
     * replay runs the one schedule of {@code scheduleSeed} (a {@link SimulationFailure#seed()}),
     * as {@code -Dleasehold.simulation.seed} does.
      *
      * @param scheduleSeed the seed of the schedule to run alone
      * @return this builder
     */
    public Builder replay(long scheduleSeed) {
      this.only = scheduleSeed;
      return this;
    }

    /**
     * build checks the settings and makes the simulation.
     *
     * @return the simulation, ready to {@link Simulation#run}
     */
    public Simulation build() {
      if (instances < 1) {
        throw new IllegalArgumentException("instances must be >= 1, but was " + instances);
      }
      if (schedules < 1) {
        throw new IllegalArgumentException("schedules must be >= 1, but was " + schedules);
      }
      if (duration == null || duration.compareTo(Duration.ofSeconds(10)) < 0) {
        throw new IllegalArgumentException("duration must be >= 10s, but was " + duration);
      }
      return new Simulation(this);
    }
  }
}
