package dev.leasehold.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent.Cause;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Blocking leader code on simulated threads: sleeps in virtual time, woken by an interrupt. */
class SimulatedThreadTest {
  /**
   * blockingJob writes while it leads, in the blocking style of ordinary code: a thread per term
   * that sleeps between writes and is interrupted when the term ends. With {@code checkOnce}, it
   * checks its term, sleeps 1.5 s, and writes without checking again.
   */
  static void blockingJob(LeaderContext instance, boolean checkOnce) {
    instance.elector().onLeadershipChanged(e -> {
      if (e.cause() != Cause.ELECTED) {
        return;
      }
      Leadership term = e.leadership().orElseThrow();
      Thread worker = instance.thread(instance.id() + "-job", () -> {
        try {
          while (term.isValid()) {
            if (checkOnce) {
              instance.sleep(Duration.ofMillis(1500));
            }
            instance.resource().write(term, "line");
            instance.sleep(Duration.ofMillis(250));
          }
        } catch (InterruptedException stopped) {
          instance.note("job interrupted");
        }
      });
      term.whenLost().thenRun(worker::interrupt);
    });
  }

  @Test
  void aBlockingJobThatChecksBeforeEachWritePasses() {
    Simulation.Result r = Simulation.builder().schedules(30).build()
        .run(schedule -> schedule.instances().forEach(i -> blockingJob(i, false)));
    assertTrue(r.writes() > 500, r.toString());
  }

  @Test
  void aBlockingJobThatWritesAfterASleepIsCaught() {
    SimulationFailure f = assertThrows(SimulationFailure.class, () -> Simulation.builder().schedules(50).build()
        .run(schedule -> schedule.instances().forEach(i -> blockingJob(i, true))));
    assertTrue(f.getMessage().contains(" wrote line with token "), f.getMessage());
  }

  @Test
  void theSameSeedRunsTheSameThreads() {
    Simulation s = Simulation.builder().schedules(10).seed(7).build();
    Simulation.Result one = s.run(schedule -> schedule.instances().forEach(i -> blockingJob(i, false)));
    Simulation.Result two = s.run(schedule -> schedule.instances().forEach(i -> blockingJob(i, false)));
    assertEquals(one.writes(), two.writes());
    assertEquals(one.terms(), two.terms());
  }

  @Test
  void anInterruptWakesASleepAtTheInstantTheTermEnds() {
    VirtualTime time = VirtualTime.create();
    try (VirtualStore store = VirtualStore.create(time)) {
      VirtualElector a = store.elector().electionKey("/t").build();
      a.start();
      Leadership term = a.awaitLeadership(Duration.ofSeconds(10)).orElseThrow();
      List<Duration> woke = new ArrayList<>();
      Thread sleeper = a.thread("sleeper", () -> {
        try {
          Thread.sleep(0); // a real call outside the kit that does not block is fine
          a.sleep(Duration.ofHours(1));
        } catch (InterruptedException e) {
          woke.add(time.elapsed());
        }
      });
      term.whenLost().thenRun(sleeper::interrupt);
      time.advance(Duration.ofSeconds(1));
      store.faults().expireLease("/t");
      Duration lostAt = time.elapsed();
      time.advance(Duration.ofSeconds(1));
      assertEquals(1, woke.size());
      assertTrue(woke.get(0).minus(lostAt).compareTo(Duration.ofMillis(100)) < 0, woke + " vs " + lostAt);
    }
  }

  @Test
  void sleepingOffASimulatedThreadSaysWhereToSleep() {
    List<String> refused = new ArrayList<>();
    Simulation.builder().schedules(1).build().run(schedule -> {
      try {
        schedule.instances().get(0).sleep(Duration.ofSeconds(1));
      } catch (IllegalStateException e) {
        refused.add(e.getMessage());
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    });
    assertEquals(1, refused.size());
    assertTrue(refused.get(0).startsWith("sleep waits on a simulated thread of i1"), refused.get(0));
  }
}
