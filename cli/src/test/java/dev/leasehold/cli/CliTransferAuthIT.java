package dev.leasehold.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.LeaderElector;
import dev.leasehold.Participant;
import dev.leasehold.etcd.EtcdLeaderElector;
import dev.leasehold.it.EtcdAuth;
import dev.leasehold.it.EtcdClusterExtension;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.auth.Permission;
import io.etcd.jetcd.options.OptionsUtil;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/**
 * The least privilege of {@code leasehold transfer} (docs/operations.md) on a real etcd with
 * {@code auth enable}: an operator whose role reads the election key and its queue and may write
 * the transfer request key alone moves leadership; one that may only read is refused as a
 * configuration error (exit 78) and moves nothing.
 */
class CliTransferAuthIT {
  @RegisterExtension
  static final EtcdClusterExtension ETCD = EtcdClusterExtension.members(1).configure(b -> b.auth("root-pw"));
  private static final String KEY = "/leasehold/ops/leader";
  private static final Duration WAIT = Duration.ofSeconds(20);

  private final List<LeaderElector> electors = new ArrayList<>();

  @BeforeAll
  static void roles() {
    try (Client root = ETCD.cluster().rootClient()) {
      EtcdAuth.addUser(root, "elector", "e-pw", "/leasehold/ops/", true);
      EtcdAuth.addUser(root, "operator", "o-pw", KEY, false, Permission.Type.READ);
      grant(root, "operator-role", Participant.prefix(KEY), true, Permission.Type.READ);
      grant(root, "operator-role", Participant.transferRequestKey(KEY), false, Permission.Type.READWRITE);
      EtcdAuth.addUser(root, "watcher", "w-pw", "/leasehold/ops/", true, Permission.Type.READ);
    }
  }

  private static void grant(Client root, String role, String key, boolean prefix, Permission.Type type) {
    ByteSequence from = ByteSequence.from(key, StandardCharsets.UTF_8);
    try {
      root.getAuthClient().roleGrantPermission(ByteSequence.from(role, StandardCharsets.UTF_8), from,
          prefix ? OptionsUtil.prefixEndOf(from) : ByteSequence.EMPTY, type).get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("grant " + type + " on " + key + " to " + role, e);
    }
  }

  @AfterEach
  void close() {
    electors.forEach(LeaderElector::close);
  }

  private LeaderElector elector(String id) {
    LeaderElector e = EtcdLeaderElector.builder()
        .endpoints(ETCD.cluster().clientEndpoints().toArray(String[]::new))
        .credentials("elector", "e-pw".toCharArray())
        .electionKey(KEY)
        .candidateId(id)
        .leaseTtl(Duration.ofSeconds(2))
        .build();
    electors.add(e);
    e.start();
    return e;
  }

  private static int transfer(String user, String password, StringWriter err) throws Exception {
    Path file = Files.createTempFile("leasehold-pw", ".txt");
    Files.writeString(file, password + "\n");
    try {
      CommandLine cli = Leasehold.commandLine();
      cli.setOut(new PrintWriter(new StringWriter(), true));
      cli.setErr(new PrintWriter(err, true));
      return cli.execute("transfer", "--endpoints", ETCD.cluster().clientEndpointsCsv(), "--user", user,
          "--password-file", file.toString(), "--key", KEY, "--to", "b");
    } finally {
      Files.delete(file);
    }
  }

  @Test
  void anOperatorWithTheRequestKeyAloneMovesLeadershipAndAReaderIsRefused() throws Exception {
    LeaderElector a = elector("a");
    await().atMost(WAIT).until(a::isLeader);
    LeaderElector b = elector("b");
    await().atMost(WAIT).until(() -> a.participants().toCompletableFuture().get(5, TimeUnit.SECONDS).size() == 1);

    StringWriter denied = new StringWriter();
    assertEquals(Leasehold.CONFIG, transfer("watcher", "w-pw", denied), denied.toString());
    assertTrue(denied.toString().contains("permission denied"), denied.toString());
    assertTrue(a.isLeader(), "a refused request moves nothing");

    StringWriter err = new StringWriter();
    assertEquals(0, transfer("operator", "o-pw", err), err.toString());
    await().atMost(WAIT).until(b::isLeader);
  }
}
