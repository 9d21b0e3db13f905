package dev.leasehold.test.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.test.LeaderContext;
import dev.leasehold.test.LeaseholdSimulation;
import dev.leasehold.test.Simulation;
import dev.leasehold.test.SimulationFailure;
import org.junit.jupiter.api.Test;

/**
 * Examples 2 and 3 of docs/testing.md: 1,000 simulated schedules of the report job pass; the
 * same job with a planted bug fails with a seed that replays the failure, and passes once the
 * kit's check is turned off (so the check is what finds it).
 */
class ReportJobSimulationTest {

  static void correctJob(LeaderContext instance) {
    ReportJob.checkingEachWrite(instance.scheduler(), instance.resource()::write).install(instance.elector());
  }

  static void plantedBug(LeaderContext instance) {
    ReportJob.withPlantedBug(instance.scheduler(), instance.resource()::write).install(instance.elector());
  }

  @LeaseholdSimulation(instances = 3, schedules = 1000)
  void theReportJobNeverWritesOutsideItsTerm(Simulation simulation) {
    Simulation.Result result = simulation.run(schedule -> schedule.instances().forEach(ReportJobSimulationTest::correctJob));
    assertTrue(result.terms() > result.schedules(), "the faults ended terms: " + result);
    System.out.printf("example 2: %d schedules, %d terms, %d writes, no write outside its term;"
        + " %d ms of real time%n", result.schedules(), result.terms(), result.writes(), result.realTime().toMillis());
  }

  @Test
  void thePlantedBugIsFoundAndItsSeedReplaysIt() {
    long start = System.nanoTime();
    Simulation simulation = Simulation.builder().instances(3).schedules(1000).build();
    SimulationFailure found = assertThrows(SimulationFailure.class,
        () -> simulation.run(schedule -> schedule.instances().forEach(ReportJobSimulationTest::plantedBug)));
    long foundAfter = (System.nanoTime() - start) / 1_000_000;
    System.out.println("example 3: " + found.getMessage());
    assertTrue(found.getMessage().contains("-Dleasehold.simulation.seed=" + found.seed()), found.getMessage());

    SimulationFailure replayed = assertThrows(SimulationFailure.class,
        () -> Simulation.builder().replay(found.seed()).build()
            .run(schedule -> schedule.instances().forEach(ReportJobSimulationTest::plantedBug)));
    assertEquals(firstLine(found).replaceFirst("schedule \\d+ of \\d+", ""),
        firstLine(replayed).replaceFirst("schedule \\d+ of \\d+", ""), "the seed replays the same failure");
    System.out.printf("example 3: found on schedule %d after %d ms of real time%n", found.schedule() + 1, foundAfter);
  }

  @Test
  void withItsCheckOffTheKitDoesNotFailThePlantedBug() {
    // The test of the test: the same schedules, up to the one that failed, pass without the check.
    SimulationFailure found = assertThrows(SimulationFailure.class,
        () -> Simulation.builder().build()
            .run(schedule -> schedule.instances().forEach(ReportJobSimulationTest::plantedBug)));
    Simulation.Result unchecked = Simulation.builder().schedules(found.schedule() + 1).checkOverlap(false).build()
        .run(schedule -> schedule.instances().forEach(ReportJobSimulationTest::plantedBug));
    assertEquals(found.schedule() + 1, unchecked.schedules());
    Simulation.builder().replay(found.seed()).checkOverlap(false).build()
        .run(schedule -> schedule.instances().forEach(ReportJobSimulationTest::plantedBug));
  }

  private static String firstLine(Throwable t) {
    return t.getMessage().lines().findFirst().orElse("");
  }
}
