package dev.leasehold.it.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.it.chaos.History.Attempt;
import dev.leasehold.it.chaos.History.Interval;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * HistoryRecorderClockTest feeds the recorder the lines of a process whose clock runs at half
 * speed from another origin, as under libfaketime, with its clock probes, and checks that {@link
 * HistoryRecorder#mapClock} puts every stamp (its terms, open or closed, its writes, its stalls)
 * and every later line on the shared clock.
 */
class HistoryRecorderClockTest {
  private static final long MS = 1_000_000L;
  private static final long ORIGIN = 1_796_490_016_239_171_585L;
  private static final double RATE = 0.5;

  private static long own(long shared) {
    return ORIGIN + Math.round(shared * RATE);
  }

  // Generous: a probe whose answer waited for the CPU (up to the fit's 5 ms round trip) bends the
  // fit a little; an unmapped stamp would be off by about 1.8e18 ns.
  private static void assertNear(long expected, long actual, String what) {
    assertTrue(Math.abs(expected - actual) < 5 * MS, what + ": " + actual + " is not within 5 ms of " + expected);
  }

  @Test
  void aSkewedProcesssStampsAreMappedToTheSharedClock() throws Exception {
    HistoryRecorder r = new HistoryRecorder();
    long t0 = System.nanoTime();
    r.accept("c1.2", "EVENT " + own(t0) + " ELECTED CANDIDATE MASTER c1.2 7");
    r.accept("c1.2", "WRITE " + own(t0 + MS) + " " + own(t0 + 2 * MS) + " " + own(t0 + 3 * MS) + " 7 OK 1 1");
    r.accept("c1.2", "STALL " + own(t0 + 4 * MS) + " " + own(t0 + 5 * MS));
    for (int i = 0; i < 15; i++) {
      long sent = System.nanoTime();
      r.accept("c1.2", "CLOCK " + sent + " " + own(sent));
      Thread.sleep(5);
    }
    ClockMap map = r.mapClock("c1.2", RATE, true);
    assertEquals(RATE, map.rate(), 0.05);
    long t1 = System.nanoTime();
    r.accept("c1.2", "EVENT " + own(t1) + " KEY_TAKEN MASTER FOLLOWER - 0");
    r.accept("c1.2", "SEND " + own(t1 + MS) + " 7 2");

    Interval term = r.intervals(t1 + 10 * MS).get(0);
    assertNear(t0, term.start(), "the term's start, logged before the fit");
    assertNear(t1, term.end(), "its end, logged after");
    List<Attempt> attempts = r.attempts();
    assertNear(t0 + MS, attempts.get(0).check(), "the write's check");
    assertNear(t0 + 3 * MS, attempts.get(0).end(), "its end");
    assertNear(t1 + MS, attempts.get(1).send(), "a write sent after the fit, its outcome unknown");
    assertEquals(Long.MAX_VALUE, attempts.get(1).end());
    assertNear(t0 + 4 * MS, r.stalls().get(0).from(), "the stall");
    assertEquals(List.of(new History.ClockRate("c1.2", RATE, true)), r.clocks());
  }
}
