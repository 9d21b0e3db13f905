package dev.leasehold.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Bad arguments exit with 2 and a message that names the option; nothing connects. */
class CommandLineTest {
  private record Result(int code, String err) {}

  private static Result execute(String... args) {
    CommandLine cli = Leasehold.commandLine();
    StringWriter err = new StringWriter();
    cli.setErr(new PrintWriter(err, true));
    cli.setOut(new PrintWriter(new StringWriter(), true));
    return new Result(cli.execute(args), err.toString());
  }

  private static void assertUsage(String expected, String... args) {
    Result r = execute(args);
    assertEquals(Leasehold.USAGE, r.code(), r.err());
    assertTrue(r.err().contains(expected), "expected \"" + expected + "\" in: " + r.err());
    assertTrue(r.err().contains("--help' for more information"), r.err());
  }

  @Test
  void transferNeedsEtcdAndNamesItsMissingTarget() {
    assertUsage("--to", "transfer", "--endpoints", "http://127.0.0.1:1", "--key", "/k");
    assertUsage("transfer needs etcd (--endpoints)", "transfer", "--jdbc-url", "jdbc:postgresql://127.0.0.1:1/db",
        "--key", "k", "--to", "b");
  }

  @Test
  void aMissingKeyIsNamed() {
    assertUsage("--key", "run", "--endpoints", "http://127.0.0.1:1", "--", "true");
  }

  @Test
  void aMissingCommandIsNamed() {
    assertUsage("CMD", "run", "--endpoints", "http://127.0.0.1:1", "--key", "k");
  }

  @Test
  void noBackendOrTwoBackendsAreRefused() {
    assertUsage("one of --endpoints (etcd) or --jdbc-url", "run", "--key", "k", "--", "true");
    assertUsage("--endpoints and --jdbc-url must not both be given", "run", "--endpoints", "http://127.0.0.1:1",
        "--jdbc-url", "jdbc:mariadb://db/x", "--key", "k", "--", "true");
  }

  @Test
  void aGraceThatDoesNotFitTheTtlIsRefusedWithTheBound() {
    // etcd at TTL 2 s: 1.78 s window - 0.333 s interval (TTL/6) - 0.5 s RPC timeout - 0.1 s backoff - 0.2 s reserve.
    assertUsage("--grace must be <= 0.646s (with --ttl 2: TTL x 0.99", "run", "--endpoints", "http://127.0.0.1:1",
        "--key", "k", "--ttl", "2", "--grace", "1", "--", "true");
    // etcd at TTL 5 s: the leader renews as late as leaves 2 s of its 4.45 s window.
    assertUsage("--grace must be <= 0.7s (with --ttl 5", "run", "--endpoints", "http://127.0.0.1:1",
        "--key", "k", "--ttl", "5", "--grace", "1.5", "--", "true");
    // Even TTL 1 s leaves room (0.89 s window - 0.167 s - 0.25 s - 0.1 s - 0.2 s): its default grace fits.
    ElectorConfig ttl1 = ElectorConfig.builder().electionKey("k").leaseTtl(Duration.ofSeconds(1)).build();
    assertEquals(Duration.ofMillis(173), RunCommand.maxGrace(ttl1, true));
    assertEquals(Duration.ofMillis(173), RunCommand.defaultGrace(ttl1, true));
  }

  @Test
  void badNumbersAreNamedWithTheirValue() {
    assertUsage("'--timeout': '0.5x' is not a number of seconds", "run", "--endpoints", "http://127.0.0.1:1",
        "--key", "k", "--timeout", "0.5x", "--", "true");
    assertUsage("--ttl must be >= 1 second, but was 0", "run", "--endpoints", "http://127.0.0.1:1", "--key", "k",
        "--ttl", "0", "--", "true");
    assertUsage("--timeout must be > 0 seconds, but was 0s", "run", "--endpoints", "http://127.0.0.1:1", "--key", "k",
        "--timeout", "0", "--", "true");
  }

  @Test
  void cronOptionsAreCheckedBeforeAnythingConnects() {
    assertUsage("--hold-at-least must be > 0 seconds, but was 0s", "run", "--endpoints", "http://127.0.0.1:1",
        "--key", "k", "--skip-if-led", "--hold-at-least", "0", "--", "true");
    assertUsage("--no-pid-namespace and --require-tree-kill must not both be given", "run", "--endpoints",
        "http://127.0.0.1:1", "--key", "k", "--no-pid-namespace", "--require-tree-kill", "--", "true");
    assertUsage("--skip-if-led and --rejoin must not both be given", "run", "--endpoints", "http://127.0.0.1:1",
        "--key", "k", "--skip-if-led", "--rejoin", "--", "true");
  }

  @Test
  void aMissingCommandExits127AndOneThatIsNotExecutable126BeforeAnythingConnects() throws Exception {
    Result missing = execute("run", "--endpoints", "http://127.0.0.1:1", "--key", "k", "--", "/no/such/binary");
    assertEquals(Leasehold.NOT_FOUND, missing.code(), missing.err());
    java.nio.file.Path plain = java.nio.file.Files.createTempFile("leasehold-not-executable", ".sh");
    try {
      Result notExecutable = execute("run", "--endpoints", "http://127.0.0.1:1", "--key", "k", "--", plain.toString());
      assertEquals(Leasehold.CANNOT_EXECUTE, notExecutable.code(), notExecutable.err());
    } finally {
      java.nio.file.Files.delete(plain);
    }
    assertEquals(Leasehold.NOT_FOUND, RunCommand.findCommand("no-such-command-here", "/usr/bin:/bin"));
    assertEquals(0, RunCommand.findCommand("sh", "/no/such/dir:/usr/bin:/bin"));
    assertEquals(Leasehold.CANNOT_EXECUTE, RunCommand.findCommand("usr", "/"));
  }

  @Test
  void statusNamesTheHostAndPortThatDidNotAnswer() throws Exception {
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Result r = execute("status", "--endpoints", "http://127.0.0.1:" + port, "--key", "k", "--timeout", "1");
    assertEquals(Leasehold.STORE_UNREACHABLE, r.code(), r.err());
    assertTrue(r.err().contains("leasehold: etcd at 127.0.0.1:" + port + " "), r.err());
    assertEquals("db.example:3306", StoreOptions.hostPort("jdbc:mariadb://db.example:3306/app?user=x"));
    assertEquals("db:5432", StoreOptions.hostPort("jdbc:postgresql://app:secret@db:5432/app"));
  }

  @Test
  void helpIsWrappedAtWordsWithinEightyColumns() {
    for (String command : List.of("run", "status", "watch", "transfer")) {
      CommandLine sub = Leasehold.commandLine().getSubcommands().get(command);
      sub.setUsageHelpWidth(80);
      sub.setUsageHelpAutoWidth(false);
      String help = sub.getUsageMessage();
      for (String line : help.split("\n")) {
        assertTrue(line.length() <= 80, command + ": a line of " + line.length() + " columns: " + line);
      }
    }
    // Paragraphs are filled, not cut where the source's lines ended.
    String status = Leasehold.commandLine().getSubcommands().get("status").getUsageMessage();
    assertTrue(status.contains("time left on its\nlease, read from the store"), status);
  }

  @Test
  void etcdRefusingTheClientIsAConfigurationErrorNotAnOutage() {
    assertTrue(EtcdClients.refusal(new RuntimeException("io.grpc.StatusRuntimeException: INVALID_ARGUMENT:"
        + " etcdserver: authentication failed, invalid user ID or password")));
    assertTrue(EtcdClients.refusal(new RuntimeException("wrapped",
        new RuntimeException("PERMISSION_DENIED: etcdserver: permission denied"))));
    assertTrue(EtcdClients.refusal(new RuntimeException(new javax.net.ssl.SSLHandshakeException("PKIX path"))));
    assertFalse(EtcdClients.refusal(new RuntimeException("UNAVAILABLE: io exception")));
    assertFalse(EtcdClients.refusal(new RuntimeException("etcdserver: invalid auth token")));
  }

  @Test
  void coresAdviceNamesTheCommandsOptions() {
    assertEquals("...;\nor let leasehold create it with --create-table",
        StoreOptions.inOptionNames("...;\nor let the elector create it with createTable(true)"));
    assertEquals("qualify the table (--jdbc-table mydb.leasehold_lease)",
        StoreOptions.inOptionNames("qualify the table (table(\"mydb.leasehold_lease\"))"));
  }

  @Test
  void etcdOptionProblemsNameTheOption() {
    assertUsage("--tls-ca must be given for https:// endpoints", "status", "--endpoints", "https://127.0.0.1:1",
        "--key", "k");
    assertUsage("--tls-key must be given with --tls-cert", "run", "--endpoints", "http://127.0.0.1:1", "--key", "k",
        "--tls-cert", "/nonexistent.pem", "--", "true");
    assertUsage("--tls-ca must be a readable file", "run", "--endpoints", "https://127.0.0.1:1", "--key", "k",
        "--tls-ca", "/nonexistent.pem", "--", "true");
    // The old names still work, out of the help.
    assertUsage("--tls-key must be given with --tls-cert", "run", "--endpoints", "http://127.0.0.1:1", "--key", "k",
        "--cert", "/nonexistent.pem", "--", "true");
    assertUsage("--tls-ca must be a readable file", "run", "--endpoints", "https://127.0.0.1:1", "--key", "k",
        "--cacert", "/nonexistent.pem", "--", "true");
    String help = Leasehold.commandLine().getSubcommands().get("run").getUsageMessage();
    assertTrue(help.contains("--tls-key=FILE") && !help.contains("--key-file"), help);
    assertUsage("--jdbc-user needs --jdbc-url", "run", "--endpoints", "http://127.0.0.1:1", "--key", "k",
        "--jdbc-user", "app", "--", "true");
  }

  @Test
  void aJdbcUrlWithoutADriverPointsAtTheClassPathVariable() {
    assertUsage("LEASEHOLD_CLASSPATH", "run", "--jdbc-url", "jdbc:nosuchdb://db/x", "--key", "k", "--", "true");
  }

  @Test
  void theCommandKeepsItsOwnOptions() {
    CommandLine cli = Leasehold.commandLine();
    CommandLine.ParseResult r = cli.parseArgs("run", "--endpoints", "http://h:1", "--key", "k", "sh", "-c", "x --key y");
    RunCommand run = r.subcommand().commandSpec().commandLine().getCommand();
    assertEquals(java.util.List.of("sh", "-c", "x --key y"), run.command);
    assertEquals("k", run.key);
  }

  @Test
  void theDefaultGraceFitsEveryTtl() {
    for (boolean etcd : new boolean[] {true, false}) {
      for (int ttl = 2; ttl <= 60; ttl++) {
        ElectorConfig c = ElectorConfig.builder().electionKey("k").leaseTtl(Duration.ofSeconds(ttl)).build();
        Duration grace = RunCommand.defaultGrace(c, etcd);
        assertTrue(grace.compareTo(Duration.ofMillis(50)) >= 0, "ttl " + ttl + ": " + grace);
        assertTrue(grace.plus(RunCommand.KILL_RESERVE).compareTo(RunCommand.healthyFloor(c, etcd)) <= 0, "ttl " + ttl);
      }
    }
    ElectorConfig ttl5 = ElectorConfig.builder().electionKey("k").leaseTtl(Duration.ofSeconds(5)).build();
    // SQL renews every TTL/6: TTL/5 fits. On etcd the leader renews as late as leaves 2 s of its
    // 4.45 s window, so one timed-out call (1 s) and the backoff (0.1 s) leave 0.9 s: 0.7 s of grace.
    assertEquals(Duration.ofSeconds(1), RunCommand.defaultGrace(ttl5, false));
    assertEquals(Duration.ofMillis(700), RunCommand.defaultGrace(ttl5, true));
  }

  @Test
  void secondsTakeDecimalsAndRefuseSubMillisecondPrecision() {
    assertEquals(Duration.ofMillis(1500), new Seconds().convert("1.5"));
    assertEquals("0.2s", dev.leasehold.Durations.seconds(Duration.ofMillis(200)));
    assertThrows(CommandLine.TypeConversionException.class, () -> new Seconds().convert("0.0001"));
  }

  @Test
  void durationOptionsTakeUnitsAndBareSecondsAlike() {
    assertEquals(Duration.ofMillis(500), new Seconds().convert("500ms"));
    assertEquals(Duration.ofSeconds(2), new Seconds().convert("2s"));
    assertEquals(Duration.ofSeconds(2), new Seconds().convert("PT2S"));
    assertUsage("--grace must be <= 0.646s (with --ttl 2s: TTL x 0.99", "run", "--endpoints", "http://127.0.0.1:1",
        "--key", "k", "--ttl", "2s", "--grace", "1000ms", "--", "true");
  }

  @Test
  void coresRefusalsNameTheOption() {
    assertUsage("--ttl must be a whole number of seconds (etcd grants seconds), but was 2.5s", "run", "--endpoints",
        "http://127.0.0.1:1", "--key", "k", "--ttl", "2.5", "--", "true");
    assertUsage("--key must not be empty, but was \" \"", "run", "--endpoints", "http://127.0.0.1:1", "--key", " ",
        "--", "true");
    assertUsage("--endpoints[0] must be a URL like", "status", "--endpoints", "127.0.0.1:2379", "--key", "k");
    assertUsage("Invalid value for option '--preempt-after': '-1' is not a number of seconds", "run", "--endpoints", "http://127.0.0.1:1", "--key", "k",
        "--priority", "5", "--preempt-after", "-1", "--", "true");
  }

  @Test
  void jsonEscapesControlCharactersAndQuotes() {
    assertEquals("\"a\\\"b\\\\c\\n\\u0001\"", Json.string("a\"b\\c\n\u0001"));
  }
}
