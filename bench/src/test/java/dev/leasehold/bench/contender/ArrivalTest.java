package dev.leasehold.bench.contender;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ArrivalTest {
  @Test
  void aPacedCandidateStartsNoSoonerThanItsTurn() {
    Arrival a = Arrival.everyMicros(2_000);
    long t0 = System.nanoTime();
    a.awaitTurn(t0, 0);
    a.awaitTurn(t0, 5);
    long waited = System.nanoTime() - t0;
    assertTrue(waited >= 10_000_000L, "the sixth candidate's turn is 10 ms after the first's, but it came after "
        + waited / 1e6 + " ms");
  }

  @Test
  void withoutAPaceATurnThatHasPassedOrAnyTurnComesAtOnce() {
    long t0 = System.nanoTime();
    // Turn 1,000,000 at one per 0 µs is now; turn 0 at any pace is now. Neither parks.
    Arrival.everyMicros(0).awaitTurn(t0, 1_000_000);
    Arrival.everyMicros(60_000_000).awaitTurn(t0, 0);
    long waited = System.nanoTime() - t0;
    // Far below the minute the second one would wait for turn 1.
    assertTrue(waited < 30_000_000_000L, "waited " + waited / 1e6 + " ms");
  }

  @Test
  void aNegativePaceIsRefusedByName() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Arrival.everyMicros(-1));
    assertTrue(e.getMessage().contains("pace-us") && e.getMessage().contains("-1"), e.getMessage());
  }
}
