package dev.leasehold.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.it.EtcdClusterExtension;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code leasehold run}'s own exit codes on real etcd: not leader within --timeout (124), store
 * unreachable (123), a signal while waiting (128 + signal), and --rejoin running the child again.
 */
class CliExitCodesIT {
  @RegisterExtension static final EtcdClusterExtension ETCD = EtcdClusterExtension.members(1);

  private final Path dir = Path.of("target", "cli-it", "exit-" + UUID.randomUUID().toString().substring(0, 8))
      .toAbsolutePath();
  private final String key = "/it/cli/exit/" + UUID.randomUUID();

  private LeaseholdProcess run(String id, String endpoints, String... rest) throws Exception {
    // TTL 5: the holder must keep its term on a loaded machine while the others wait.
    return run(id, 5, endpoints, rest);
  }

  private LeaseholdProcess run(String id, int ttl, String endpoints, String... rest) throws Exception {
    String[] head = {"run", "--endpoints", endpoints, "--key", key, "--ttl", Integer.toString(ttl), "--id", id};
    String[] all = new String[head.length + rest.length];
    System.arraycopy(head, 0, all, 0, head.length);
    System.arraycopy(rest, 0, all, head.length, rest.length);
    return LeaseholdProcess.start(id, dir, all);
  }

  @Test
  void notLeaderWithinTimeoutExits124AndASignalWhileWaitingExits143() throws Exception {
    String etcd = ETCD.cluster().clientEndpointsCsv();
    Path pid = dir.resolve("holder.pid");
    try (LeaseholdProcess holder = run("holder", etcd, "--", "sh", "-c", "echo $$ > " + pid + "; exec sleep 1000")) {
      await().atMost(Duration.ofSeconds(40)).until(() -> LeaseholdProcess.pidIn(pid).isPresent());
      LeaseholdProcess waiter = run("waiter", etcd, "--", "true");
      // Long enough for a cold JVM's first etcd call (seconds on a loaded machine: 7 s seen at
      // load 40): else the store has not answered yet at the timeout, which is 123, not 124.
      LeaseholdProcess late = run("late", etcd, "--timeout", "15", "--", "true");
      await().atMost(Duration.ofSeconds(40)).until(() -> waiter.log().contains("leader is holder"));
      waiter.signal("TERM");
      assertEquals(128 + 15, waiter.exitCode(Duration.ofSeconds(10)), waiter.log());
      assertEquals(Leasehold.NOT_ACQUIRED, late.exitCode(Duration.ofSeconds(40)), late.log());
      assertTrue(late.log().contains("(another candidate leads)"), late.log());
      assertTrue(holder.isAlive());
    }
  }

  @Test
  void anUnreachableStoreAtTimeoutExits123() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    LeaseholdProcess p = run("alone", "http://127.0.0.1:" + port, "--timeout", "2", "--", "true");
    assertEquals(Leasehold.STORE_UNREACHABLE, p.exitCode(Duration.ofSeconds(40)), p.log());
    assertTrue(p.log().contains("the store is unreachable"), p.log());
    assertTrue(p.log().contains("leasehold: not leader within --timeout 2s"), p.log());
  }

  @Test
  void rejoinRunsTheChildAgainAfterItExits() throws Exception {
    Path runs = dir.resolve("runs");
    try (LeaseholdProcess p = run("again", 2, ETCD.cluster().clientEndpointsCsv(), "--rejoin", "--",
        "sh", "-c", "echo $LEASEHOLD_FENCING_TOKEN >> " + runs)) {
      await().atMost(Duration.ofSeconds(40)).until(() -> lines(runs) >= 2);
      java.util.List<String> tokens = Files.readAllLines(runs, StandardCharsets.UTF_8);
      assertTrue(Long.parseLong(tokens.get(1)) > Long.parseLong(tokens.get(0)), "a new term, a larger token: " + tokens);
      assertTrue(p.isAlive());
    }
  }

  // One run for two things the child sees, to keep the suite short.
  @Test
  void theChildGetsTheGrantedTtlAndWithNoPidNamespaceCanSignalAProcessOutsideItsTree() throws Exception {
    Path ttl = dir.resolve("ttl");
    // This JVM is outside the child's tree: in a PID namespace of its own the child could not see it.
    long outside = ProcessHandle.current().pid();
    LeaseholdProcess p = run("child", 1, ETCD.cluster().clientEndpointsCsv(), "--no-pid-namespace", "--",
        "sh", "-c", "echo $LEASEHOLD_LEASE_TTL > " + ttl + " && kill -0 " + outside);
    assertEquals(0, p.exitCode(Duration.ofSeconds(40)), p.log());
    assertFalse(p.log().contains("no PID namespace"), "the opt-out is no warning: " + p.log());
    // etcd grants at least its minimum TTL (1.5 election timeouts, rounded up to 2 s) for --ttl 1.
    assertEquals(List.of("2"), Files.readAllLines(ttl, StandardCharsets.UTF_8));
  }

  private static long lines(Path f) {
    try {
      return Files.readAllLines(f, StandardCharsets.UTF_8).size();
    } catch (java.io.IOException e) {
      return 0;
    }
  }
}
