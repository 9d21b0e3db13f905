package dev.leasehold.etcd.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
 * Every machine routes all its moves through its choke point, the runtime's {@code Roles}: no
 * other file in core makes a {@code Command.Publish}, and no machine file keeps a role of its own
 * or assigns one. (That every published move is legal in its machine's table is checked by
 * driving each machine: {@code TransitionChokePointTest}, {@code SqlMachineRandomTest},
 * {@code SessionElectionRandomTest}, with {@code PublishedMoves}.)
 */
class ChokePointRoutingTest {
  private static final Path MAIN = Path.of("src/main/java");
  private static final Path ROLES = Path.of("src/main/java/dev/leasehold/runtime/Roles.java");
  static final Pattern MAKES_A_PUBLISH = Pattern.compile("new\\s+(Command\\s*\\.\\s*)?Publish\\s*\\(|Publish\\s*::\\s*new");
  // A field of type ElectorState that can change (fields sit at two spaces), or an assignment to
  // a role or to what the listeners were told.
  static final Pattern KEEPS_A_ROLE =
      Pattern.compile("^ {2}(?:(?:private|protected|public|static)\\s+)*(?!final\\b)ElectorState\\s+\\w+\\s*[;=]");
  static final Pattern ASSIGNS_A_ROLE = Pattern.compile("^\\s*(?:\\w+\\.)*(?:role|told)\\s*=(?!=)");

  @Test
  void onlyTheChokePointMakesAPublish() throws IOException {
    List<String> found = new ArrayList<>();
    List<Path> files;
    try (Stream<Path> s = Files.walk(MAIN)) {
      files = s.filter(p -> p.toString().endsWith(".java")).sorted().toList();
    }
    for (Path f : files) {
      List<String> lines = Files.readAllLines(f);
      for (int i = 0; i < lines.size(); i++) {
        if (MAKES_A_PUBLISH.matcher(ProtocolPurityTest.code(lines.get(i))).find()) {
          found.add(MAIN.relativize(f) + ":" + (i + 1) + ": " + lines.get(i).trim());
        }
      }
    }
    assertEquals(1, found.size(), () -> "a Publish is made outside Roles, or nowhere: " + found);
    assertTrue(found.get(0).startsWith(MAIN.relativize(ROLES).toString()), found.toString());
  }

  @Test
  void noMachineKeepsOrAssignsARoleOfItsOwn() throws IOException {
    List<String> found = new ArrayList<>();
    for (Path f : ProtocolPurityTest.machineFiles()) {
      if (f.endsWith(ROLES.getFileName()) && f.getParent().endsWith("runtime")) {
        continue;
      }
      List<String> lines = Files.readAllLines(f);
      for (int i = 0; i < lines.size(); i++) {
        String code = ProtocolPurityTest.code(lines.get(i));
        if (KEEPS_A_ROLE.matcher(code).find() || ASSIGNS_A_ROLE.matcher(code).find()) {
          found.add(f.getFileName() + ":" + (i + 1) + ": " + lines.get(i).trim());
        }
      }
    }
    assertEquals(List.of(), found);
  }

  @Test
  void theChecksSeeWhatTheyLookFor() throws IOException {
    assertTrue(MAKES_A_PUBLISH.matcher("fx.add(new Command.Publish(from, to, cause, leader, now));").find());
    assertTrue(MAKES_A_PUBLISH.matcher("out.add(new Publish(a, b, c, d, e, f));").find());
    assertTrue(KEEPS_A_ROLE.matcher("  private ElectorState role = ElectorState.FOLLOWER;").find());
    assertTrue(!KEEPS_A_ROLE.matcher("  private final ElectorState initial;").find());
    assertTrue(!KEEPS_A_ROLE.matcher("    ElectorState role = roles.role();").find(), "a local copy is no role");
    assertTrue(ASSIGNS_A_ROLE.matcher("    role = to;").find());
    assertTrue(ASSIGNS_A_ROLE.matcher("    this.told = to;").find());
    assertTrue(ASSIGNS_A_ROLE.matcher("    m.role = ElectorState.MASTER;").find());
    assertTrue(!ASSIGNS_A_ROLE.matcher("    ElectorState role = roles.role();").find(), "a local copy is no role");
    assertTrue(!ASSIGNS_A_ROLE.matcher("    if (role == ElectorState.MASTER) {").find());
    // Roles itself does both, so the scans above are not vacuous.
    List<String> roles = Files.readAllLines(ROLES);
    assertTrue(roles.stream().anyMatch(l -> MAKES_A_PUBLISH.matcher(ProtocolPurityTest.code(l)).find()));
    assertTrue(roles.stream().anyMatch(l -> KEEPS_A_ROLE.matcher(l).find()));
    assertTrue(roles.stream().anyMatch(l -> ASSIGNS_A_ROLE.matcher(ProtocolPurityTest.code(l)).find()));
  }
}
