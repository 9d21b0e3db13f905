package dev.leasehold.it.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.leasehold.it.chaos.History.Incarnation;
import dev.leasehold.it.chaos.History.StoreWrite;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** MariaDbStoreTest checks how the log table's rows become the store's record, without a server. */
class MariaDbStoreTest {
  private static final String ELECTION = "/chaos/x/election";
  private static final String COUNTER = "/chaos/x/counter";

  private static List<String> row(Object... cells) {
    return Arrays.stream(cells).map(c -> c == null ? null : c.toString()).toList();
  }

  @Test
  void takesReleasesAndWritesBecomeTermsWithTheirEpochsAndWrites() {
    List<List<String>> log = List.of(
        row(1, "T", ELECTION, null, "c0.1", 1, null),
        row(2, "W", COUNTER, 1, "c0.1", 1, 1),
        row(3, "E", ELECTION, null, "c0.1", 1, null),
        row(4, "T", ELECTION, null, "c1.1", 2, null),
        // A take straight over an expired row, with no release between: the old term ends here.
        row(5, "T", ELECTION, null, "c2.1", 3, null),
        row(6, "W", COUNTER, 2, "c2.1", 3, 1),
        // Another run's rows in the same table are not this run's.
        row(7, "T", "/chaos/y/election", null, "z", 9, null));
    StoreHistory h = MariaDbStore.history(log, ELECTION, COUNTER, 2);
    assertEquals(List.of(new StoreWrite(2, 1, "c0.1", 1, 1), new StoreWrite(6, 2, "c2.1", 3, 1)), h.writes());
    assertEquals(List.of(
        new Incarnation(1, 3, "c0.1", 1),
        new Incarnation(4, 5, "c1.1", 2),
        new Incarnation(5, Long.MAX_VALUE, "c2.1", 3)), h.incarnations());
    assertEquals(2, h.finalCounter());
  }

  @Test
  void onlyHarnessMadeNamesAreQuoted() {
    assertEquals("'/chaos/x/election'", MariaDbStore.literal(ELECTION));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MariaDbStore.literal("a' OR 1"));
    assertEquals("value must match [A-Za-z0-9._/-]*, but was \"a' OR 1\"", e.getMessage());
  }
}
