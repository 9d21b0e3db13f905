package dev.leasehold.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.it.mariadb.MariaDbExtension;
import dev.leasehold.it.mariadb.MariaDbServer;
import dev.leasehold.it.postgres.PostgresServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code leasehold run} and {@code status} on a real mariadbd, with the user's driver jar on
 * LEASEHOLD_CLASSPATH (MariaDB's is LGPL: the shaded jar does not bundle it), and on a real
 * postgres with the driver the shaded jar bundles; the password in LEASEHOLD_JDBC_PASSWORD,
 * which the child must not inherit.
 */
@ExtendWith(MariaDbExtension.class)
class CliJdbcIT {
  private static final Logger log = LoggerFactory.getLogger(CliJdbcIT.class);
  private static final String SLEEPER = CliRunIT.SLEEPER;

  private final Path dir = Path.of("target", "cli-it", "jdbc-" + UUID.randomUUID().toString().substring(0, 8))
      .toAbsolutePath();
  private final String key = "cli/" + UUID.randomUUID().toString().substring(0, 8);

  /** env has MariaDB's driver jar on LEASEHOLD_CLASSPATH (the shaded jar bundles none) and the password. */
  private static Map<String, String> env(String password) throws Exception {
    String driver = Path.of(org.mariadb.jdbc.Driver.class.getProtectionDomain().getCodeSource().getLocation().toURI())
        .toString();
    return Map.of("LEASEHOLD_CLASSPATH", driver, "LEASEHOLD_JDBC_PASSWORD", password);
  }

  @Test
  void oneChildRunsOnTheLeaseRowAndItsExitHandsOver(MariaDbServer db) throws Exception {
    oneChildRunsAndItsExitHandsOver("MariaDB", db.jdbcUrl(), db.rootUser(), env(db.rootPassword()));
  }

  @Test
  void onPostgresTheShadedJarBringsItsOwnDriver() throws Exception {
    try (PostgresServer db = PostgresServer.builder().name("CliJdbcIT").start()) {
      // No LEASEHOLD_CLASSPATH: the PostgreSQL driver (BSD-2) ships in the shaded jar.
      oneChildRunsAndItsExitHandsOver("PostgreSQL", db.jdbcUrl(), db.superuser(),
          Map.of("LEASEHOLD_JDBC_PASSWORD", db.superuserPassword()));
    }
  }

  private void oneChildRunsAndItsExitHandsOver(String server, String url, String user, Map<String, String> env)
      throws Exception {
    List<String> store = List.of("--jdbc-url", url, "--jdbc-user", user, "--key", key);
    try (LeaseholdProcess a = run("a", dir, env, store); LeaseholdProcess b = run("b", dir, env, store)) {
      await().atMost(Duration.ofSeconds(40)).until(() -> child(dir, "a").isPresent() || child(dir, "b").isPresent());
      await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(10))
          .until(() -> child(dir, "a").isPresent() != child(dir, "b").isPresent());
      LeaseholdProcess leader = child(dir, "a").isPresent() ? a : b;
      LeaseholdProcess other = leader == a ? b : a;
      String childEnv = Files.readString(dir.resolve(leader.name() + ".env"), StandardCharsets.UTF_8);
      assertTrue(childEnv.contains("LEASEHOLD_BACKEND=jdbc\n"), childEnv);
      assertFalse(childEnv.contains("LEASEHOLD_JDBC_PASSWORD"), "the child inherited the password: " + childEnv);
      Matcher token = Pattern.compile("LEASEHOLD_FENCING_TOKEN=(\\d+)\n").matcher(childEnv);
      assertTrue(token.find(), childEnv);

      List<String> status = new java.util.ArrayList<>(List.of("status", "--json", "--timeout", "20"));
      status.addAll(store);
      LeaseholdProcess s = LeaseholdProcess.start("status", dir, env, status.toArray(String[]::new));
      assertEquals(0, s.exitCode(Duration.ofSeconds(30)), s.log());
      assertTrue(s.log().contains("\"leader\":\"" + leader.name() + "\",\"fencingToken\":" + token.group(1) + ","),
          s.log());

      await().atMost(Duration.ofSeconds(10)).until(() -> other.log().contains("leader is " + leader.name()));
      long sent = System.nanoTime();
      LeaseholdProcess.kill("TERM", child(dir, leader.name()).orElseThrow());
      await().atMost(Duration.ofSeconds(4)).pollInterval(Duration.ofMillis(1))
          .until(() -> child(dir, other.name()).isPresent());
      log.info("measured: {}: child exit -> the other's child started {} ms later (TTL 5 s)", server,
          String.format("%.1f", (System.nanoTime() - sent) / 1e6));
      assertEquals(143, leader.exitCode(Duration.ofSeconds(10)), leader.log());
    }
  }

  @Test
  void configurationErrorsExit78AtOnceAndAreSaidOnceInTheCommandsWords(MariaDbServer db) throws Exception {
    List<String> store = List.of("--jdbc-url", db.jdbcUrl(), "--key", key, "--jdbc-allow-relaxed-durability");

    // No --create-table: the message is printed once, and advises the option, not the builder's createTable(true).
    LeaseholdProcess missing = leasehold("missing", env(db.rootPassword()), store, "--jdbc-user", db.rootUser(),
        "--jdbc-table", "no_such_table");
    assertEquals(Leasehold.CONFIG, missing.exitCode(Duration.ofSeconds(40)), missing.log());
    assertEquals(1, Pattern.compile("table no_such_table does not exist").matcher(missing.log()).results().count(),
        missing.log());
    assertTrue(missing.log().contains("or let leasehold create it with --create-table"), missing.log());
    assertFalse(missing.log().contains("createTable(true)"), missing.log());
    List<String> status = new java.util.ArrayList<>(List.of("status", "--jdbc-user", db.rootUser(), "--jdbc-table",
        "no_such_table", "--jdbc-url", db.jdbcUrl(), "--key", key));
    LeaseholdProcess read = LeaseholdProcess.start("status", dir, env(db.rootPassword()), status.toArray(String[]::new));
    assertEquals(Leasehold.CONFIG, read.exitCode(Duration.ofSeconds(40)), read.log());
    assertTrue(read.log().contains("leasehold: configuration error: the database at "), read.log());

    // A user who may read but not write the lease table.
    LeaseholdProcess create = leasehold("create", env(db.rootPassword()), store, "--jdbc-user", db.rootUser(),
        "--jdbc-table", "ro_lease", "--create-table");
    assertEquals(0, create.exitCode(Duration.ofSeconds(40)), create.log());
    db.createUser("reader", "reader-pw", "SELECT ON " + MariaDbServer.DATABASE + ".*");
    LeaseholdProcess reader = leasehold("reader", env("reader-pw"), store, "--jdbc-user", "reader",
        "--jdbc-table", "ro_lease");
    assertEquals(Leasehold.CONFIG, reader.exitCode(Duration.ofSeconds(40)), reader.log());
    assertEquals(1, Pattern.compile("configuration error: permission denied: ").matcher(reader.log()).results().count(),
        reader.log());
  }

  private LeaseholdProcess leasehold(String id, Map<String, String> env, List<String> store, String... more)
      throws Exception {
    List<String> args = new java.util.ArrayList<>(List.of("run", "--id", id));
    args.addAll(store);
    args.addAll(List.of(more));
    args.addAll(List.of("--", "true"));
    return LeaseholdProcess.start(id, dir, env, args.toArray(String[]::new));
  }

  private static LeaseholdProcess run(String id, Path dir, Map<String, String> env, List<String> store)
      throws Exception {
    List<String> args = new java.util.ArrayList<>(List.of("run", "--id", id, "--create-table",
        // the launcher's private server trades durability for speed
        "--jdbc-allow-relaxed-durability"));
    args.addAll(store);
    args.addAll(List.of("--", "sh", "-c", SLEEPER.replace("ID", id).replace("DIR", dir.toString())));
    return LeaseholdProcess.start(id, dir, env, args.toArray(String[]::new));
  }

  private static Optional<Long> child(Path dir, String id) {
    return LeaseholdProcess.pidIn(dir.resolve(id + ".pid")).filter(LeaseholdProcess::running);
  }
}
