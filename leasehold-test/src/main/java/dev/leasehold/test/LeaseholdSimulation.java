package dev.leasehold.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * LeaseholdSimulation makes a JUnit 5 test method of a simulation: the method takes a
 * {@link Simulation} parameter, configured from this annotation, and runs the user's setup
 * with it:
 *
 * <pre>{@code
 * @LeaseholdSimulation(instances = 3, schedules = 1000)
 * void theReportJobNeverWritesOutsideItsTerm(Simulation simulation) {
 *   simulation.run(schedule -> schedule.instances().forEach(ReportJob::install));
 * }
 * }</pre>
 *
 * <p>A failure prints the seed and a replay command for this test method ({@code mvn test
 * -Dtest='Class#method' -Dleasehold.simulation.seed=...}); see {@link Simulation} for the
 * system properties.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
@Test
@ExtendWith(SimulationExtension.class)
public @interface LeaseholdSimulation {
  /**
   * instances is the number of simulated instances.
   *
   * @return how many instances each schedule simulates, at least 1
   */
  int instances() default 3;

  /**
   * schedules is the number of seeded schedules.
   *
   * @return how many schedules to run, at least 1
   */
  int schedules() default 1000;

  /**
   * seed is the seed the schedules' seeds are drawn from.
   *
   * @return the master seed
   */
  long seed() default 1;

  /**
   * durationSeconds is the virtual time each schedule runs, in seconds.
   *
   * @return the virtual seconds of one schedule, at least 10
   */
  int durationSeconds() default 30;

  /**
   * leaseTtlSeconds is every instance's lease TTL, in seconds.
   *
   * @return the TTL in seconds
   */
  int leaseTtlSeconds() default 2;

  /**
   * faults are the kinds of fault a schedule may contain.
   *
   * @return the fault kinds; empty for none
   */
  Fault[] faults() default {Fault.OUTAGE, Fault.PARTITION, Fault.PAUSE, Fault.DRIFT};

  /**
   * checkOverlap is the default check: an unfenced write outside its term fails the run.
   *
   * @return false to turn the default check off
   */
  boolean checkOverlap() default true;
}
