package dev.leasehold.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The guards {@code run} starts its child under, on real processes and every guard this
 * machine allows: the command's exit code and signals come through as before, and under tree
 * kill nothing of the command's tree (grandchildren, a setsid escapee, an orphan of a double
 * fork) is left once the child's exit is reported. The start-up cost of each guard is logged as
 * "measured: ...". That the tree dies with a SIGKILLed leasehold is {@code CliTreeKillIT}'s.
 */
class GuardTest {
  private static final Logger log = LoggerFactory.getLogger(GuardTest.class);
  private static List<Guard> working;

  private final String marker = Long.toString(100_000_000L + new Random().nextInt(900_000_000));

  @BeforeAll
  static void findTheGuardsThatWorkHere() throws InterruptedException {
    List<Guard> candidates = Guard.candidates();
    assertNotNull(candidates, "setsid and setpriv (util-linux) must be on PATH");
    working = new ArrayList<>();
    for (Guard g : candidates) {
      String failure = g.tryOnce();
      log.info("guard {}: {}", g, failure == null ? "works" : failure);
      if (failure == null) {
        working.add(g);
      }
    }
    assertFalse(working.isEmpty(), "not even the child-only guard works");
    assertFalse(working.get(working.size() - 1).treeKill(), "the last resort kills only the child: " + working);
  }

  @AfterEach
  void killWhatIsLeft() {
    LeaseholdProcess.killAll(marker);
  }

  /** Started is a child and its exit code to come. */
  private record Started(Child child, CompletableFuture<Integer> exit) {
    int code() throws Exception {
      return exit.get(10, TimeUnit.SECONDS);
    }
  }

  private static Started start(Guard g, String script) throws Exception {
    CompletableFuture<Integer> exit = new CompletableFuture<>();
    Child c = Child.start(g, List.of("sh", "-c", script), Map.of(), exit::complete);
    return new Started(c, exit);
  }

  private void awaitSleepers(int n) {
    await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(2))
        .until(() -> LeaseholdProcess.sleepers(marker).size() == n);
  }

  @Test
  void everyGuardPassesOnTheExitCodeAndTheSignals() throws Exception {
    for (Guard g : working) {
      assertEquals(7, start(g, "exit 7").code(), g.toString());
      for (Map.Entry<String, Integer> sig : Map.of("TERM", 143, "INT", 130, "HUP", 129, "KILL", 137).entrySet()) {
        if (ignoredByThisJvm(sig.getValue() - 128)) {
          // Inherited as ignored by every child (a JVM started in the background of a script
          // ignores SIGINT); such a leasehold would never get one to forward either.
          continue;
        }
        Started s = start(g, "exec sleep 1000." + marker);
        awaitSleepers(1);
        s.child().signal(sig.getKey());
        assertEquals(sig.getValue(), s.code(), g + ", SIG" + sig.getKey());
      }
      Started trapped = start(g, "trap 'exit 9' TERM; sleep 1000." + marker + " & wait");
      awaitSleepers(1);
      trapped.child().signal("TERM");
      assertEquals(9, trapped.code(), g + ": a child that handles SIGTERM exits as it chooses");
      LeaseholdProcess.killAll(marker);
    }
  }

  @Test
  void underTreeKillNothingOfTheTreeOutlivesTheReportedExit() throws Exception {
    List<Guard> treeKill = working.stream().filter(Guard::treeKill).toList();
    assumeFalse(treeKill.isEmpty(), "no PID namespace here: " + working);
    for (Guard g : treeKill) {
      // The script leaves its tree and exits by itself.
      Started exits = start(g, LeaseholdProcess.tree(marker).replace("exec sleep 1000." + marker, "exit 3"));
      assertEquals(3, exits.code(), g.toString());
      assertTrue(exits.child().killLeftovers());
      assertEquals(Map.of(), LeaseholdProcess.withMarker(marker), g + ": left behind by a command that exited");

      // SIGTERM to the group: the escapee and the orphan get none, and die with the namespace.
      Started termed = start(g, LeaseholdProcess.tree(marker));
      awaitSleepers(LeaseholdProcess.TREE_SLEEPERS);
      termed.child().signal("TERM");
      assertEquals(143, termed.code(), g.toString());
      assertTrue(termed.child().killLeftovers());
      assertEquals(Map.of(), LeaseholdProcess.withMarker(marker), g + ": left behind after SIGTERM");

      // SIGKILL, as at the end of a term whose child ignores SIGTERM.
      Started killed = start(g, "trap '' TERM; " + LeaseholdProcess.tree(marker));
      awaitSleepers(LeaseholdProcess.TREE_SLEEPERS);
      killed.child().signal("KILL");
      assertEquals(137, killed.code(), g.toString());
      assertTrue(killed.child().killLeftovers());
      assertEquals(Map.of(), LeaseholdProcess.withMarker(marker), g + ": left behind after SIGKILL");
    }
  }

  @Test
  void startUpCostOfEachGuard() throws Exception {
    int rounds = 40;
    Map<Guard, long[]> started = new java.util.LinkedHashMap<>();
    Map<Guard, long[]> exited = new java.util.LinkedHashMap<>();
    working.forEach(g -> {
      started.put(g, new long[rounds]);
      exited.put(g, new long[rounds]);
    });
    for (int i = 0; i < rounds; i++) {
      // Interleaved, so that the machine's load falls on every guard alike.
      for (Guard g : working) {
        CompletableFuture<Long> exit = new CompletableFuture<>();
        int[] code = {-1};
        long t0 = System.nanoTime();
        Child c = Child.start(g, List.of("true"), Map.of(), x -> {
          code[0] = x;
          exit.complete(System.nanoTime());
        });
        started.get(g)[i] = System.nanoTime() - t0;
        long end = exit.get(10, TimeUnit.SECONDS);
        assertEquals(0, code[0], g.toString());
        assertTrue(c.killLeftovers(), g.toString());
        exited.get(g)[i] = end - t0;
      }
    }
    for (Guard g : working) {
      log.info("measured: guard {} ({}): Child.start returns after {} ms, `true` has run and exited after {} ms"
              + " (median, p90 in brackets, {} rounds)", g, g.treeKill() ? "tree kill" : "child only",
          percentiles(started.get(g)), percentiles(exited.get(g)), rounds);
    }
  }

  private static boolean ignoredByThisJvm(int signal) throws java.io.IOException {
    String mask = java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status")).stream()
        .filter(l -> l.startsWith("SigIgn:")).findFirst().orElseThrow().substring(7).strip();
    return new java.math.BigInteger(mask, 16).testBit(signal - 1);
  }

  private static String percentiles(long[] nanos) {
    long[] s = nanos.clone();
    java.util.Arrays.sort(s);
    return String.format("%.2f [%.2f]", s[s.length / 2] / 1e6, s[s.length * 9 / 10] / 1e6);
  }
}
