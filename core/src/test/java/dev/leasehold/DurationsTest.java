package dev.leasehold;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** One way to read a duration for properties, environment variables and command-line options. */
class DurationsTest {
  @Test
  void aBareNumberMeansSecondsAndUnitsAndIsoAreReadAlike() {
    assertEquals(Duration.ofSeconds(5), Durations.parse("x", "5"));
    assertEquals(Duration.ofSeconds(5), Durations.parse("x", "5s"));
    assertEquals(Duration.ofSeconds(5), Durations.parse("x", " PT5S "));
    assertEquals(Duration.ofMillis(500), Durations.parse("x", "500ms"));
    assertEquals(Duration.ofMillis(500), Durations.parse("x", "0.5"));
    assertEquals(Duration.ofMillis(1500), Durations.parse("x", "1.5s"));
    assertEquals(Duration.ofMinutes(2), Durations.parse("x", "2m"));
    assertEquals(Duration.ofHours(1), Durations.parse("x", "1h"));
    assertEquals(Duration.ofNanos(1_500_500_000), Durations.parse("x", "1.5005"), "kept to the nanosecond");
  }

  @Test
  void textThatIsNoDurationIsRefusedNamingTheCallersName() {
    assertEquals("--ttl must be a duration such as 5s, 500ms, 1.5s, 2m or PT5S, but was \"5 sec\"",
        assertThrows(IllegalArgumentException.class, () -> Durations.parse("--ttl", "5 sec")).getMessage());
    for (String bad : new String[] {"", "s", "-1s", "1.s", "five", "1e3"}) {
      assertThrows(IllegalArgumentException.class, () -> Durations.parse("x", bad), bad);
    }
  }

  @Test
  void humanPrintsMillisecondsBelowASecondAndSecondsAbove() {
    assertEquals("200ms", Durations.human(Duration.ofMillis(200)));
    assertEquals("333.333333ms", Durations.human(Duration.ofSeconds(1).dividedBy(3)));
    assertEquals("1.666s", Durations.human(Duration.ofMillis(1666)));
    assertEquals("5s", Durations.human(Duration.ofSeconds(5)));
    assertEquals("null", Durations.human(null));
  }

  @Test
  void secondsPrintsTheCommandLinesUnit() {
    assertEquals("0.2s", Durations.seconds(Duration.ofMillis(200)));
    assertEquals("2.417s", Durations.seconds(Duration.ofMillis(2417)));
    assertEquals("0s", Durations.seconds(Duration.ZERO));
  }
}
