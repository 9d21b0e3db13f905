package dev.leasehold.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.LeaderElector;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.Participant;
import dev.leasehold.etcd.EtcdLeaderElector;
import dev.leasehold.it.EtcdClusterExtension;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code leasehold transfer} on a real etcd, from outside the electors (as an operator's shell
 * would): the leader hands its term to the named candidate, a name not in the queue is refused
 * with the queue listed, asking for the current leader is a no-op, and the request key never
 * stays behind.
 */
class CliTransferIT {
  @RegisterExtension static final EtcdClusterExtension ETCD = EtcdClusterExtension.members(1);
  private static final Duration WAIT = Duration.ofSeconds(20);

  private final String key = "/it/cli/transfer/" + UUID.randomUUID();
  private final List<LeaderElector> electors = new ArrayList<>();
  private final List<LeadershipEvent> aEvents = new CopyOnWriteArrayList<>();

  private record Result(int code, String out, String err) {}

  private Result transfer(String to) {
    CommandLine cli = Leasehold.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int code = cli.execute("transfer", "--endpoints", ETCD.cluster().clientEndpointsCsv(), "--key", key, "--to", to);
    return new Result(code, out.toString(), err.toString());
  }

  private LeaderElector elector(String id) {
    LeaderElector e = EtcdLeaderElector.builder()
        .endpoints(ETCD.cluster().clientEndpoints().toArray(String[]::new))
        .electionKey(key)
        .candidateId(id)
        .leaseTtl(Duration.ofSeconds(2))
        .build();
    electors.add(e);
    return e;
  }

  @AfterEach
  void close() {
    electors.forEach(LeaderElector::close);
  }

  @Test
  void theLeaderHandsItsTermToTheNamedCandidateAndAStrangerIsRefused() throws Exception {
    LeaderElector a = elector("a");
    a.onLeadershipChanged(aEvents::add);
    a.start();
    await().atMost(WAIT).until(a::isLeader);
    long token = a.leadership().orElseThrow().fencingToken();
    LeaderElector b = elector("b");
    LeaderElector c = elector("c");
    b.start();
    c.start();
    await().atMost(WAIT).until(() -> a.participants().toCompletableFuture().get(5, TimeUnit.SECONDS).size() == 2);

    Result ghost = transfer("ghost");
    assertEquals(TransferCommand.REFUSED, ghost.code(), ghost.err());
    assertTrue(ghost.err().contains("ghost is not waiting in the queue of " + key + " (it shows [b, c])"), ghost.err());
    assertTrue(a.isLeader(), "a refused request changes nothing");

    Result moved = transfer("c");
    assertEquals(0, moved.code(), moved.err());
    org.slf4j.LoggerFactory.getLogger(CliTransferIT.class).info("leasehold transfer said: {}", moved.out().trim());
    assertTrue(moved.out().startsWith("c leads " + key + " (fencing token "), moved.out());
    assertTrue(moved.out().contains("handed over by a in "), moved.out());
    await().atMost(WAIT).until(c::isLeader);
    assertTrue(c.leadership().orElseThrow().fencingToken() > token);
    assertFalse(a.isLeader());
    assertFalse(b.isLeader());
    assertTrue(aEvents.stream().anyMatch(e -> e.cause() == Cause.TRANSFERRED), aEvents.toString());

    Result again = transfer("c");
    assertEquals(0, again.code(), again.err());
    assertTrue(again.out().contains("c leads " + key + " already"), again.out());

    try (Client outside = Client.builder().endpoints(ETCD.cluster().clientEndpoints().toArray(String[]::new)).build()) {
      ByteSequence request = ByteSequence.from(Participant.transferRequestKey(key), StandardCharsets.UTF_8);
      assertEquals(0, outside.getKVClient().get(request).get(5, TimeUnit.SECONDS).getCount(),
          "the request went with the command's lease");
    }
  }
}
