package dev.leasehold.test;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * Schedule is one run of a {@link Simulation}, handed to the user's setup before it starts:
 * the instances (each a {@link LeaderContext}), the shared {@link SimulatedResource}, and the
 * invariants the user adds, checked after every event of the run.
 *
 * <p>Not thread-safe: the simulation's one thread uses it.
 */
public final class Schedule {
  private final long seed;
  private final List<LeaderContext> instances;
  private final SimulatedResource resource;
  private final VirtualTime time;
  private final History history;
  private final List<Invariant> invariants = new ArrayList<>();

  record Invariant(String name, BooleanSupplier holds) {}

  Schedule(long seed, List<LeaderContext> instances, SimulatedResource resource, VirtualTime time,
      History history) {
    this.seed = seed;
    this.instances = List.copyOf(instances);
    this.resource = resource;
    this.time = time;
    this.history = history;
  }

  /**
   * seed is this schedule's seed: {@code -Dleasehold.simulation.seed=} it replays this run.
   *
   * @return the seed that replays this schedule alone
   */
  public long seed() {
    return seed;
  }

  /**
   * instances are the simulated instances, in the order of their ids.
   *
   * @return the instances, {@code i1} first; never empty
   */
  public List<LeaderContext> instances() {
    return instances;
  }

  /**
   * resource is what the instances write to, checked by the simulation.
   *
   * @return the resource the default check reads
   */
  public SimulatedResource resource() {
    return resource;
  }

  /**
   * time is this schedule's virtual time; read it, do not advance it from the setup.
   *
   * @return the virtual time the schedule runs on
   */
  public VirtualTime time() {
    return time;
  }

  /**
   * invariant adds a check that must hold after every event of the run; the first time it does
   * not, the run fails with {@code name}.
    *
    * @param name the invariant's name, which a failure prints
    * @param holds the check, run on the simulation's thread after each event; true when it holds
   */
  public void invariant(String name, BooleanSupplier holds) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(holds, "holds");
    invariants.add(new Invariant(name, holds));
  }

  /**
   * note adds a line to the history a failure prints.
   *
   * @param who whose line it is, for example an instance's id
   * @param what the line
   */
  public void note(String who, String what) {
    history.add(who, what);
  }

  /** broken is the name of the first invariant that does not hold now, or null. */
  String broken() {
    for (Invariant i : invariants) {
      if (!i.holds().getAsBoolean()) {
        return i.name();
      }
    }
    return null;
  }
}
