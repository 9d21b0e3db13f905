package dev.leasehold.it.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** PostgresFaultsTest checks how {@code -Dchaos.faults} picks the faults of PostgresChaosIT's two runs, without a server. */
class PostgresFaultsTest {
  private static List<String> names(List<Fault> faults) {
    return faults.stream().map(Fault::name).toList();
  }

  @Test
  void eachRunKeepsTheListedFaultsItHas() {
    String listed = "pgbouncer-restart,postgres-kill,postgres-terminate-session";
    assertEquals(List.of("postgres-kill", "postgres-terminate-session"),
        names(PostgresFaults.named(PostgresFaults.all(), listed)));
    assertEquals(List.of("pgbouncer-restart", "postgres-kill"),
        names(PostgresFaults.named(PostgresFaults.throughPgBouncer(), listed)));
  }

  @Test
  void aListOfTheOtherRunsFaultsOnlyLeavesARunNone() {
    assertTrue(PostgresFaults.named(PostgresFaults.all(), "pgbouncer-restart,pgbouncer-pause").isEmpty());
  }

  @Test
  void noListOrAllKeepsEveryFaultOfTheRun() {
    assertEquals(names(PostgresFaults.throughPgBouncer()),
        names(PostgresFaults.named(PostgresFaults.throughPgBouncer(), null)));
    assertEquals(names(PostgresFaults.all()), names(PostgresFaults.named(PostgresFaults.all(), "all")));
  }

  @Test
  void aFaultNeitherRunHasIsRefusedWithTheKnownOnes() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PostgresFaults.named(PostgresFaults.throughPgBouncer(), "pgbouncer-restart,etcd-kill-leader"));
    assertTrue(e.getMessage().startsWith("chaos.faults has an unknown fault in \"pgbouncer-restart,etcd-kill-leader\";"
        + " known: [postgres-kill, postgres-pause, postgres-terminate-session, candidate-cut-blackhole"), e.getMessage());
    assertTrue(e.getMessage().contains("pgbouncer-restart, pgbouncer-pause]"), e.getMessage());
  }

  @Test
  void theRunThroughPgBouncerHasNoTermSessionToEnd() {
    assertEquals(List.of("pgbouncer-restart", "pgbouncer-pause", "postgres-kill", "postgres-pause",
        "candidate-cut-blackhole", "candidate-cut-reset", "candidate-kill", "candidate-pause"),
        names(PostgresFaults.throughPgBouncer()));
  }
}
