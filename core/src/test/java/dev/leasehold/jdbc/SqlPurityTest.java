package dev.leasehold.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The SQL machine must stay pure: no JDBC, no threads, no clock reads, no locks. */
class SqlPurityTest {
  /** The machine's files; the store (SqlLeaseStore, TermSession, ...) is where I/O lives. */
  static final List<String> MACHINE =
      List.of(
          "SqlMachine.java", "SqlFollower.java", "SqlCandidate.java", "SqlMaster.java",
          "SqlRole.java", "SqlEffects.java", "SqlTimer.java", "SqlCommand.java", "SqlInput.java",
          "SqlConfig.java", "LeaseRow.java", "HolderToken.java", "ObservedRow.java",
          "Orphans.java", "SqlTerm.java");

  private static final List<Pattern> FORBIDDEN =
      List.of(
          Pattern.compile("\\bjava\\.sql\\b"),
          Pattern.compile("\\bjavax\\.sql\\b"),
          Pattern.compile("java\\.util\\.concurrent"),
          Pattern.compile("\\bThread\\b"),
          Pattern.compile("System\\.(nanoTime|currentTimeMillis)"),
          Pattern.compile("\\b(Instant|Clock|LocalDateTime)\\.now\\b"),
          Pattern.compile("\\bSecureRandom\\b"),
          Pattern.compile("\\bsynchronized\\b"),
          Pattern.compile("\\borg\\.slf4j\\b"));

  @Test
  void theMachinesFilesUseNoJdbcNoThreadsNoClockAndNoLogging() throws IOException {
    Path dir = Path.of("src/main/java/dev/leasehold/jdbc");
    List<String> violations = new ArrayList<>();
    for (String name : MACHINE) {
      Path f = dir.resolve(name);
      assertTrue(Files.exists(f), f.toAbsolutePath() + " is listed but missing");
      List<String> lines = Files.readAllLines(f);
      for (int i = 0; i < lines.size(); i++) {
        String code = lines.get(i).replaceAll("//.*", "");
        if (code.trim().startsWith("*") || code.trim().startsWith("/*")) {
          continue;
        }
        for (Pattern p : FORBIDDEN) {
          if (p.matcher(code).find()) {
            violations.add(name + ":" + (i + 1) + ": " + lines.get(i).trim());
          }
        }
      }
    }
    assertEquals(List.of(), violations);
  }

  @Test
  void theCheckCatchesJdbcAndAClockRead() {
    assertTrue(FORBIDDEN.get(0).matcher("import java.sql.Connection;").find());
    assertTrue(FORBIDDEN.get(4).matcher("long t = System.nanoTime();").find());
  }
}
