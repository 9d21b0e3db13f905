package dev.leasehold.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent.Cause;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The simulation's own promises: seeds replay exactly, fenced writes are safe, invariants count. */
class SimulationTest {
  /** writer writes every 100 ms while leading; fenced or not, checking its term once, 1 s before. */
  static void writer(LeaderContext instance, boolean fenced) {
    instance.elector().onLeadershipChanged(e -> {
      if (e.cause() == Cause.ELECTED) {
        Leadership term = e.leadership().orElseThrow();
        instance.scheduler().scheduleWithFixedDelay(() -> {
          if (term.isValid()) {
            instance.scheduler().schedule(() -> {
              if (fenced) {
                instance.resource().writeFenced(term, "x");
              } else {
                instance.resource().write(term, "x");
              }
            }, 1, TimeUnit.SECONDS);
          }
        }, 0, 100, TimeUnit.MILLISECONDS);
      }
    });
  }

  @Test
  void theSameSeedRunsTheSameSchedules() {
    Simulation s = Simulation.builder().schedules(20).seed(42).build();
    Simulation.Result one = s.run(schedule -> schedule.instances().forEach(i -> writer(i, true)));
    Simulation.Result two = s.run(schedule -> schedule.instances().forEach(i -> writer(i, true)));
    assertEquals(one.terms(), two.terms());
    assertEquals(one.writes(), two.writes());
  }

  @Test
  void lateWritesPassWhenFencedEvenUnderTheOperatorsFaults() {
    Simulation.Result r = Simulation.builder().schedules(50).faults(Fault.values()).build()
        .run(schedule -> schedule.instances().forEach(i -> writer(i, true)));
    assertTrue(r.writes() > 0, r.toString());
  }

  @Test
  void aBrokenInvariantFailsTheRunWithItsName() {
    SimulationFailure f = assertThrows(SimulationFailure.class, () -> Simulation.builder().schedules(5).build()
        .run(schedule -> schedule.invariant("nobody leads", () ->
            schedule.instances().stream().noneMatch(i -> i.elector().isLeader()))));
    assertTrue(f.getMessage().contains("invariant 'nobody leads' does not hold"), f.getMessage());
    assertEquals(0, f.schedule());
  }

  @Test
  void theSeedPropertyRunsThatOneSchedule() {
    SimulationFailure found = assertThrows(SimulationFailure.class, () -> Simulation.builder().schedules(50).build()
        .run(schedule -> schedule.instances().forEach(i -> writer(i, false))));
    System.setProperty(Simulation.SEED_PROPERTY, Long.toString(found.seed()));
    try {
      SimulationFailure replayed = assertThrows(SimulationFailure.class, () -> Simulation.builder().schedules(50).build()
          .run(schedule -> schedule.instances().forEach(i -> writer(i, false))));
      assertEquals(found.seed(), replayed.seed());
      assertEquals(0, replayed.schedule());
      assertEquals(found.history(), replayed.history(), "the same run, event for event");
      Simulation.Result one = Simulation.builder().build().run(schedule -> { });
      assertEquals(1, one.schedules());
    } finally {
      System.clearProperty(Simulation.SEED_PROPERTY);
    }
  }

  @Test
  void settingsAreCheckedAndNamed() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Simulation.builder().duration(Duration.ofSeconds(5)).build());
    assertEquals("duration must be >= 10s, but was PT5S", e.getMessage());
  }
}
