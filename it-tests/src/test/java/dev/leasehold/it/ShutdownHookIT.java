package dev.leasehold.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real SIGTERM to a leading candidate JVM: with closeOnShutdown its hook releases the lease,
 * so the other candidate takes over by revocation, long before the 5 s lease could expire.
 */
class ShutdownHookIT {
  private static final Logger log = LoggerFactory.getLogger(ShutdownHookIT.class);
  private static final int TTL_SECONDS = 5;

  @RegisterExtension static final EtcdClusterExtension ETCD = EtcdClusterExtension.members(1);

  @Test
  void sigtermToALeaderWithTheHookHandsOverWithoutWaitingForTheLease() throws Exception {
    List<String> endpoints = ETCD.cluster().clientEndpoints();
    String key = "/it/shutdown-hook/" + UUID.randomUUID();
    Path logs = Path.of("target", "shutdown-hook-it");
    try (CandidateProcess a = start("a", endpoints, key, logs);
        CandidateProcess b = start("b", endpoints, key, logs)) {
      await().atMost(Duration.ofSeconds(20)).until(() -> elected(a) || elected(b));
      CandidateProcess leader = elected(a) ? a : b;
      CandidateProcess other = leader == a ? b : a;
      other.awaitLine(
          l -> l.contains(" LEADER_CHANGED ") && l.contains(" " + leader.id() + " "),
          Duration.ofSeconds(20));
      long sent = System.nanoTime();
      int exit = leader.terminate();
      // The hook's close() publishes the term's end before the JVM exits.
      leader.awaitLine(l -> l.contains(" CLOSED MASTER STOPPED "), Duration.ofSeconds(5));
      // Takeover by revocation, not by expiry: well inside the lease's TTL.
      other.awaitLine(l -> l.contains(" ELECTED "), Duration.ofSeconds(TTL_SECONDS - 2));
      double ms = (System.nanoTime() - sent) / 1e6;
      log.info("SIGTERM to ELECTED on the other candidate: {} ms (TTL {} s); exit code {}", ms, TTL_SECONDS, exit);
      assertEquals(143, exit, "a JVM ended by SIGTERM exits with 128 + 15");
    }
  }

  private static boolean elected(CandidateProcess p) {
    return p.lines().stream().anyMatch(l -> l.contains(" ELECTED "));
  }

  private static CandidateProcess start(String id, List<String> endpoints, String key, Path logs)
      throws Exception {
    return CandidateProcess.start(
        id, endpoints, key, TTL_SECONDS, logs.resolve(id + ".log"), "--close-on-shutdown=true",
        "--poll-millis=500");
  }
}
