package dev.leasehold.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.protocol.Transitions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** PROTOCOL.md's transition table and core's {@link Transitions} must name the same moves. */
class TransitionTableTest {
  static Set<String> documented(List<String> lines) {
    Set<String> pairs = new TreeSet<>();
    boolean inside = false;
    for (String line : lines) {
      if (line.contains("transitions:begin")) {
        inside = true;
      } else if (line.contains("transitions:end")) {
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

  static Set<String> implemented() {
    Set<String> pairs = new TreeSet<>();
    for (ElectorState from : ElectorState.values()) {
      for (ElectorState to : ElectorState.values()) {
        if (Transitions.isLegal(from, to)) {
          pairs.add(from + "->" + to);
        }
      }
    }
    return pairs;
  }

  @Test
  void protocolDocumentListsExactlyTheLegalTransitions() throws IOException {
    Set<String> doc = documented(Files.readAllLines(Path.of("PROTOCOL.md")));
    assertTrue(doc.size() >= 5, "table not found or too short: " + doc);
    assertEquals(implemented(), doc);
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
                "<!-- transitions:end -->"));
    assertEquals(Set.of("FOLLOWER->CANDIDATE"), doc);
    assertTrue(!implemented().equals(doc));
  }
}
