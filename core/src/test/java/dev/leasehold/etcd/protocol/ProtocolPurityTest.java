package dev.leasehold.etcd.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every machine must stay pure: the etcd machine and a session's (this package), the SQL machine
 * and the runtime's parts they run on (the choke point, the tables, the outage count, the step's
 * effects). No store client (etcd, JDBC), no threads, no clock reads, no locks, no logging.
 */
class ProtocolPurityTest {
  private static final Path MAIN = Path.of("src/main/java/dev/leasehold");

  /** The SQL machine's files; the store (SqlPort, TermSession, ...) is where its I/O lives. */
  private static final List<String> SQL_MACHINE =
      List.of(
          "SqlMachine.java", "SqlFollower.java", "SqlCandidate.java", "SqlMaster.java",
          "SqlRole.java", "SqlEffects.java", "SqlTimer.java", "SqlCommand.java", "SqlInput.java",
          "SqlConfig.java", "LeaseRow.java", "HolderToken.java", "ObservedRow.java",
          "Orphans.java", "SqlTerm.java", "WokenLock.java");

  /** The runtime's parts a machine runs on, inside its step. */
  private static final List<String> RUNTIME_PARTS =
      List.of(
          "Roles.java", "Transitions.java", "Reachability.java", "Term.java", "StepEffects.java",
          "Command.java", "Input.java", "Machine.java", "StoreCall.java", "ConfigurationErrors.java");

  private static final List<Pattern> FORBIDDEN =
      List.of(
          Pattern.compile("\\bio\\.etcd\\b"),
          Pattern.compile("\\bio\\.grpc\\b"),
          Pattern.compile("\\bio\\.vertx\\b"),
          Pattern.compile("java\\.util\\.concurrent"),
          Pattern.compile("\\bThread\\b"),
          Pattern.compile("System\\.(nanoTime|currentTimeMillis)"),
          Pattern.compile("\\b(Instant|Clock|LocalDateTime)\\.now\\b"),
          Pattern.compile("\\bsynchronized\\b"),
          Pattern.compile("\\bjava\\.sql\\b"),
          Pattern.compile("\\bjavax\\.sql\\b"),
          Pattern.compile("\\bSecureRandom\\b"),
          Pattern.compile("\\borg\\.slf4j\\b"));

  /** machineFiles are every machine's source files: this package's, the SQL machine's, and the runtime parts. */
  static List<Path> machineFiles() throws IOException {
    List<Path> files = new ArrayList<>();
    try (Stream<Path> s = Files.list(MAIN.resolve("etcd/protocol"))) {
      s.filter(p -> p.toString().endsWith(".java")).sorted().forEach(files::add);
    }
    SQL_MACHINE.forEach(f -> files.add(MAIN.resolve("jdbc").resolve(f)));
    RUNTIME_PARTS.forEach(f -> files.add(MAIN.resolve("runtime").resolve(f)));
    for (Path f : files) {
      assertTrue(Files.exists(f), f.toAbsolutePath() + " is listed but missing");
    }
    return files;
  }

  /** code is a source line without its comment, or "" for a line of a comment block. */
  static String code(String line) {
    String code = line.replaceAll("//.*", "");
    String t = code.trim();
    return t.startsWith("*") || t.startsWith("/*") ? "" : code;
  }

  @Test
  void everyMachineImportsNoStoreNoConcurrencyAndReadsNoClock() throws IOException {
    List<Path> files = machineFiles();
    assertFalse(files.isEmpty(), "no sources found under " + MAIN.toAbsolutePath());
    List<String> violations = new ArrayList<>();
    for (Path f : files) {
      List<String> lines = Files.readAllLines(f);
      for (int i = 0; i < lines.size(); i++) {
        String code = code(lines.get(i));
        for (Pattern p : FORBIDDEN) {
          if (p.matcher(code).find()) {
            violations.add(f.getFileName() + ":" + (i + 1) + ": " + lines.get(i).trim());
          }
        }
      }
    }
    assertEquals(List.of(), violations);
  }

  @Test
  void theCheckCatchesAForbiddenImportAndAClockRead() {
    assertTrue(FORBIDDEN.get(0).matcher("import io.etcd.jetcd.Client;").find());
    assertTrue(FORBIDDEN.get(3).matcher("import java.util.concurrent.Executors;").find());
    assertTrue(FORBIDDEN.get(5).matcher("long t = System.nanoTime();").find());
    assertTrue(FORBIDDEN.get(8).matcher("import java.sql.Connection;").find());
    assertEquals("", code(" * uses java.sql in a comment"));
  }
}
