package dev.leasehold.test;

import java.time.Clock;
import java.util.concurrent.ScheduledExecutorService;

/**
 * LeaderContext is what one simulated instance gives the user's leader-only code: its elector
 * (subscribe to it, read its term), a {@link ScheduledExecutorService} and a {@link Clock} on
 * the simulation's virtual time, and the shared {@link SimulatedResource} to write to. Code
 * that takes its elector, executor and clock as parameters (as code usually does under
 * dependency injection) runs in a simulation unchanged.
 *
 * <p>What cannot be simulated: threads the code starts itself, {@code Thread.sleep} and other
 * blocking waits (a task runs to its end before anything else happens; a pause inside it would
 * stop the whole simulation): write "wait, then act" as a task scheduled later on
 * {@link #scheduler()}.
 *
 * <p>Not thread-safe: the simulation's one thread runs the code that uses it.
 */
public final class LeaderContext {
  private final VirtualElector elector;
  private final SimulatedResource resource;
  private final History history;

  LeaderContext(VirtualElector elector, SimulatedResource resource, History history) {
    this.elector = elector;
    this.resource = resource;
    this.history = history;
  }

  /** id is the instance's candidate id ({@code i1}, {@code i2}, ...). */
  public String id() {
    return elector.config().candidateId();
  }

  /** elector is the instance's elector; the simulation starts it after the setup. */
  public VirtualElector elector() {
    return elector;
  }

  /** scheduler is the instance's own thread on virtual time, held while the instance is paused. */
  public ScheduledExecutorService scheduler() {
    return elector.executor();
  }

  /** clock is the simulation's wall clock (UTC, from {@link VirtualTime#EPOCH}). */
  public Clock clock() {
    return elector.store().time().clock();
  }

  /** resource is what the instances write to, checked by the simulation. */
  public SimulatedResource resource() {
    return resource;
  }

  /** note adds a line of the instance's own to the history a failure prints. */
  public void note(String what) {
    history.add(id(), what);
  }
}
