package dev.leasehold.test;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeoutException;

/**
 * LeaderContext is what one simulated instance gives the user's leader-only code: its elector
 * (subscribe to it, read its term), a {@link ScheduledExecutorService} and a {@link Clock} on
 * the simulation's virtual time, and the shared {@link SimulatedResource} to write to. Code
 * that takes its elector, executor and clock as parameters (as code usually does under
 * dependency injection) runs in a simulation unchanged.
 *
 * <p>Code that blocks (sleeps, waits for a future) runs on a simulated thread ({@link
 * #thread}), where {@link #sleep} and {@link #await} wait in virtual time; a task on {@link
 * #scheduler()} runs to its end before anything else happens, so it must not block. What cannot
 * be simulated: threads the code starts itself, {@code Thread.sleep}, and blocking waits other
 * than these two.
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

  /**
   * id is the instance's candidate id ({@code i1}, {@code i2}, ...).
   *
   * @return the id, {@code i} and the instance's number from 1
   */
  public String id() {
    return elector.config().candidateId();
  }

  /**
   * elector is the instance's elector; the simulation starts it after the setup.
   *
   * @return the elector, built by the simulation; the user's code never closes it
   */
  public VirtualElector elector() {
    return elector;
  }

  /**
   * scheduler is the instance's own thread on virtual time, held while the instance is paused.
   *
   * @return the instance's executor on virtual time
   */
  public ScheduledExecutorService scheduler() {
    return elector.executor();
  }

  /**
   * clock is the simulation's wall clock (UTC, from {@link VirtualTime#EPOCH}).
   *
   * @return the clock every instance of the run shares
   */
  public Clock clock() {
    return elector.store().time().clock();
  }

  /**
   * resource is what the instances write to, checked by the simulation.
   *
   * @return the resource shared by every instance of the run
   */
  public SimulatedResource resource() {
    return resource;
  }

  /**
   * thread starts a simulated thread of this instance running {@code body} (see {@link
   * VirtualElector#thread}); interrupting it from a listener wakes a {@link #sleep} or {@link
   * #await} in it with {@link InterruptedException}.
    *
    * @param name the thread's name, shown in the history
    * @param body what the thread runs; it may block with {@link #sleep} and {@link #await}
    * @return the simulated thread, already started
   */
  public Thread thread(String name, Runnable body) {
    return elector.thread(name, body);
  }

  /**
   * sleep waits {@code duration} of the instance's virtual time, on one of its simulated
   * threads ({@link VirtualElector#sleep}).
   *
    * @param duration how much virtual time to wait; zero or negative returns at once
   * @throws InterruptedException when the thread is interrupted before or during the sleep
   * @throws IllegalStateException when not called on a simulated thread of this instance
   */
  public void sleep(Duration duration) throws InterruptedException {
    elector.sleep(duration);
  }

  /**
   * await waits until {@code stage} completes, for at most {@code timeout} of the instance's
   * virtual time, on one of its simulated threads, and returns its value ({@link
   * VirtualElector#await}).
   *
    * @param <T> the stage's value type
    * @param stage what to wait for
    * @param timeout the most virtual time to wait
    * @return the stage's value
   * @throws InterruptedException when the thread is interrupted before or during the wait
   * @throws TimeoutException when {@code timeout} passed first
   * @throws ExecutionException when the stage failed
   * @throws IllegalStateException when not called on a simulated thread of this instance
   */
  public <T> T await(CompletionStage<T> stage, Duration timeout)
      throws InterruptedException, TimeoutException, ExecutionException {
    return elector.await(stage, timeout);
  }

  /**
   * note adds a line of the instance's own to the history a failure prints.
   *
   * @param what the line, as the history will print it after the instance's id
   */
  public void note(String what) {
    history.add(id(), what);
  }
}
