package dev.leasehold.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.leasehold.it.EtcdClusterExtension;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code leasehold run}'s child tree and leasehold's life, through bin/leasehold on a real etcd
 * member: a SIGKILLed leasehold takes its child's whole tree with it (grandchildren, a setsid
 * escapee, an orphan of a double fork), as the test's user and, when the tests run as root, as
 * an unprivileged user (the user-namespace way); the child keeps its stdin, stdout, stderr and
 * exit code; and where no PID namespace can be made (no unshare on PATH; a sandbox without
 * CAP_SYS_ADMIN whose user namespaces are capped at 0), leasehold says so in one line, runs
 * with the weaker guarantee, and {@code --require-tree-kill} refuses with 78 (a configuration error). Times are logged
 * as "measured: ...".
 */
class CliTreeKillIT {
  private static final Logger log = LoggerFactory.getLogger(CliTreeKillIT.class);
  private static final int TTL = 3;
  // Cold JVMs on a loaded 2-core machine: the first election may take a few seconds.
  private static final Duration START = Duration.ofSeconds(40);
  private static final String FALLBACK = "no PID namespace for the child (";
  // Runs its arguments in a new user namespace as its root, but without a capability and with
  // no user namespace allowed inside it: a locked-down container's view.
  private static final List<String> SANDBOX = List.of("unshare", "--user", "--map-root-user", "--", "/bin/sh", "-c",
      "echo 0 > /proc/sys/user/max_user_namespaces && exec setpriv --bounding-set -all --inh-caps -all -- \"$@\"",
      "sandbox");

  @RegisterExtension static final EtcdClusterExtension ETCD = EtcdClusterExtension.members(1);

  private final String marker = Long.toString(100_000_000L + new Random().nextInt(900_000_000));
  private final List<LeaseholdProcess> started = new ArrayList<>();
  private Path dir;
  private String key;
  // bin/leasehold, or a copy nobody can read (see asNobody)
  private Path launcher = Path.of(System.getProperty("leasehold.launcher", "bin/leasehold"));
  private Path installed;

  @BeforeEach
  void setUp(TestInfo info) {
    String test = info.getTestMethod().orElseThrow().getName();
    dir = Path.of("target", "cli-it", test + "-" + UUID.randomUUID().toString().substring(0, 8)).toAbsolutePath();
    key = "/it/cli/" + test + "/" + UUID.randomUUID();
  }

  @AfterEach
  void cleanUp() throws IOException {
    started.forEach(LeaseholdProcess::close);
    LeaseholdProcess.killAll(marker);
    if (installed != null) {
      try (var files = Files.walk(installed)) {
        for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(f);
        }
      }
    }
  }

  private LeaseholdProcess run(String name, List<String> wrapper, Map<String, String> env, String script,
      String... more) throws IOException {
    List<String> args = new ArrayList<>(List.of("run", "--endpoints", ETCD.cluster().clientEndpointsCsv(),
        "--key", key, "--ttl", Integer.toString(TTL), "--id", name));
    args.addAll(List.of(more));
    args.addAll(List.of("--", "sh", "-c", script));
    LeaseholdProcess p = LeaseholdProcess.start(name, dir, env, wrapper, launcher, args.toArray(String[]::new));
    started.add(p);
    return p;
  }

  private void awaitTree(LeaseholdProcess p) {
    await().atMost(START).until(() -> LeaseholdProcess.sleepers(marker).size() == LeaseholdProcess.TREE_SLEEPERS
        || !p.isAlive());
    assertTrue(p.isAlive(), p.log());
  }

  @Test
  void aSigkilledLeaseholdTakesItsChildsWholeTreeWithIt() throws Exception {
    sigkillTakesTheTree(List.of());
  }

  @Test
  void anUnprivilegedUsersLeaseholdDoesTooThroughAUserNamespace() throws Exception {
    assumeTrue(ProcessHandle.current().info().user().orElse("").equals("root"),
        "runs leasehold as nobody, which only root can do; as any other user the test above is this one");
    launcher = installForNobody();
    sigkillTakesTheTree(List.of("setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", "--"));
  }

  /**
   * installForNobody copies bin/leasehold and its jar into a new directory that every user may
   * read, and returns the copied launcher: the clone itself may sit in a directory only its owner
   * can enter (a {@code mktemp -d} checkout is mode 0700), where nobody could not start it.
   */
  private Path installForNobody() throws IOException {
    Path source = Path.of(System.getProperty("leasehold.launcher", "bin/leasehold")).toAbsolutePath();
    Path jar;
    try (var jars = Files.newDirectoryStream(source.getParent().resolveSibling("target"), "leasehold-cli-*-all.jar")) {
      jar = jars.iterator().next();
    }
    var open = PosixFilePermissions.fromString("rwxr-xr-x");
    installed = Files.createTempDirectory("leasehold-cli-it-",
        PosixFilePermissions.asFileAttribute(open));
    Path bin = Files.createDirectories(installed.resolve("bin"));
    Path target = Files.createDirectories(installed.resolve("target"));
    Files.setPosixFilePermissions(bin, open);
    Files.setPosixFilePermissions(target, open);
    Path copy = Files.copy(source, bin.resolve("leasehold"));
    Files.setPosixFilePermissions(copy, open);
    Files.setPosixFilePermissions(Files.copy(jar, target.resolve(jar.getFileName())),
        PosixFilePermissions.fromString("rw-r--r--"));
    return copy;
  }

  private void sigkillTakesTheTree(List<String> wrapper) throws Exception {
    // Asked of unshare itself, not of leasehold, so that a leasehold that fails to use a PID
    // namespace where one can be made fails this test.
    List<String> pidNamespace = new ArrayList<>(wrapper);
    pidNamespace.addAll(List.of("unshare", "--pid", "--fork", "--kill-child", "true"));
    List<String> inUserNamespace = new ArrayList<>(wrapper);
    inUserNamespace.addAll(List.of("unshare", "--user", "--map-current-user", "--pid", "--fork", "--kill-child", "true"));
    assumeTrue(succeeds(pidNamespace) || succeeds(inUserNamespace), "no PID namespace can be made here");
    LeaseholdProcess p = run("a", wrapper, Map.of(), LeaseholdProcess.tree(marker));
    awaitTree(p);
    assertFalse(p.log().contains(FALLBACK), p.log());
    Set<Long> tree = LeaseholdProcess.withMarker(marker).keySet();
    long killed = System.nanoTime();
    p.sigkill();
    await().atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(1))
        .until(() -> tree.stream().noneMatch(LeaseholdProcess::running));
    double goneMs = (System.nanoTime() - killed) / 1e6;
    assertEquals(Map.of(), LeaseholdProcess.withMarker(marker), "left of the child's tree");
    log.info("measured: SIGKILL to leasehold{} -> the last of its child's {} processes gone after {} ms",
        wrapper.isEmpty() ? "" : " (as nobody)", tree.size(), String.format("%.1f", goneMs));
  }

  @Test
  void theChildKeepsItsStdinStdoutStderrAndExitCode() throws Exception {
    LeaseholdProcess p = run("a", List.of(), Map.of(),
        "read -r line; echo \"out:$line\"; echo \"err:$line\" >&2; exit 4");
    p.stdin("hello " + marker + "\n");
    assertEquals(4, p.exitCode(START), p.log());
    assertTrue(p.log().contains("out:hello " + marker + "\n"), p.log());
    assertTrue(p.log().contains("err:hello " + marker + "\n"), p.log());
  }

  @Test
  void withoutUnshareOnPathItSaysSoInOneLineAndRequireTreeKillRefuses() throws Exception {
    Map<String, String> env = Map.of("PATH", pathWithout("unshare").toString());
    fallsBackOrRefuses(List.of(), env, "no unshare on PATH");
  }

  @Test
  void whereNamespacesAreRefusedItSaysWhyInOneLineAndRequireTreeKillRefuses() throws Exception {
    List<String> probe = new ArrayList<>(SANDBOX);
    probe.add("true");
    assumeTrue(succeeds(probe), "no sandbox here (user namespaces not allowed)");
    fallsBackOrRefuses(SANDBOX, Map.of(), "unshare --pid --fork --kill-child: ");
  }

  private void fallsBackOrRefuses(List<String> wrapper, Map<String, String> env, String why) throws Exception {
    LeaseholdProcess refused = run("refused", wrapper, env, LeaseholdProcess.tree(marker), "--require-tree-kill");
    assertEquals(Leasehold.CONFIG, refused.exitCode(START), refused.log());
    assertTrue(refused.log().contains("--require-tree-kill: " + FALLBACK + why), refused.log());
    assertTrue(refused.log().contains("refusing to run"), refused.log());
    assertFalse(refused.log().contains("leader"), "campaigned before refusing: " + refused.log());
    assertEquals(List.of(), LeaseholdProcess.sleepers(marker));

    // Without --require-tree-kill the child runs, with one line that names the weaker guarantee.
    LeaseholdProcess weak = run("weak", wrapper, env, LeaseholdProcess.tree(marker));
    awaitTree(weak);
    List<String> lines = weak.log().lines().filter(l -> l.contains(FALLBACK)).toList();
    assertEquals(1, lines.size(), weak.log());
    assertTrue(lines.get(0).contains(why), lines.get(0));
    assertTrue(lines.get(0).contains("if leasehold is SIGKILLed, only the child's own process is killed"), lines.get(0));
    // That much holds: the child's own process (the script, now `sleep 1000.<marker>`) dies with leasehold.
    long child = LeaseholdProcess.withMarker(marker).entrySet().stream()
        .filter(e -> e.getValue().equals(List.of("sleep", "1000." + marker)))
        .findFirst().orElseThrow().getKey();
    weak.sigkill();
    await().atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(1))
        .until(() -> !LeaseholdProcess.running(child));
  }

  private static boolean succeeds(List<String> command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    if (!p.waitFor(10, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return false;
    }
    return p.exitValue() == 0;
  }

  // A directory of links to every program on PATH but one.
  private Path pathWithout(String program) throws IOException {
    Path bin = dir.resolve("bin");
    Files.createDirectories(bin);
    for (String d : System.getenv("PATH").split(File.pathSeparator)) {
      Path from = Path.of(d);
      if (!d.isEmpty() && Files.isDirectory(from)) {
        try (var files = Files.list(from)) {
          for (Path f : (Iterable<Path>) files::iterator) {
            Path link = bin.resolve(f.getFileName().toString());
            if (!f.getFileName().toString().equals(program) && Files.notExists(link)) {
              Files.createSymbolicLink(link, f.toAbsolutePath());
            }
          }
        }
      }
    }
    return bin;
  }
}
