package dev.leasehold.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.runtime.Transitions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * PROTOCOL.md's transition tables and core's {@link Transitions} values must name the same moves:
 * §3's and §10's table are {@link Transitions#ELECTION}, §11.2's is {@link
 * Transitions#SESSION_ELECTION}.
 */
class TransitionTableTest {
  static Set<String> documented(List<String> lines, String table) {
    Set<String> pairs = new TreeSet<>();
    boolean inside = false;
    for (String line : lines) {
      if (line.trim().equals("<!-- " + table + ":begin -->")) {
        inside = true;
      } else if (line.trim().equals("<!-- " + table + ":end -->")) {
        inside = false;
      } else if (inside && line.startsWith("|") && !line.startsWith("|---")) {
        String[] cells = line.split("\\|");
        String from = cells[1].trim();
        String to = cells[2].trim();
        if (!from.equals("from")) {
          pairs.add(from + "->" + to);
        }
      }
    }
    return pairs;
  }

  static Set<String> implemented(Transitions table) {
    Set<String> pairs = new TreeSet<>();
    for (ElectorState from : ElectorState.values()) {
      for (ElectorState to : ElectorState.values()) {
        if (table.isLegal(from, to)) {
          pairs.add(from + "->" + to);
        }
      }
    }
    return pairs;
  }

  private static void assertDocuments(String table, Transitions implemented) throws IOException {
    Set<String> doc = documented(Files.readAllLines(Path.of("PROTOCOL.md")), table);
    assertTrue(doc.size() >= 4, () -> table + ": table not found or too short: " + doc);
    assertEquals(implemented(implemented), doc, table);
  }

  @Test
  void protocolDocumentListsExactlyTheLegalTransitions() throws IOException {
    assertDocuments("transitions", Transitions.ELECTION);
  }

  @Test
  void theSqlSectionListsTheSameTransitions() throws IOException {
    assertDocuments("sql-transitions", Transitions.ELECTION);
  }

  @Test
  void theSessionSectionListsTheSessionElectionsTransitions() throws IOException {
    assertDocuments("session-transitions", Transitions.SESSION_ELECTION);
  }

  @Test
  void theComparisonNoticesAMissingRow() {
    Set<String> doc =
        documented(
            List.of(
                "<!-- transitions:begin -->",
                "| from | to | trigger | does |",
                "|---|---|---|---|",
                "| FOLLOWER | CANDIDATE | x | y |",
                "<!-- transitions:end -->"),
            "transitions");
    assertEquals(Set.of("FOLLOWER->CANDIDATE"), doc);
    assertTrue(!implemented(Transitions.ELECTION).equals(doc));
    assertTrue(!implemented(Transitions.SESSION_ELECTION).equals(implemented(Transitions.ELECTION)),
        "the two tables differ, so a section checked against the wrong one fails");
  }
}
