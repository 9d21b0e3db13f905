package dev.leasehold.it.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * ReadmeShapeTest keeps README.md a front door: short, with its quick start, and with a way to
 * every page of docs/.
 */
class ReadmeShapeTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final int MAX_LINES = 250;

  @Test
  void theReadmeHasAtMost250Lines() throws IOException {
    int lines = Files.readAllLines(ROOT.resolve("README.md")).size();
    assertTrue(lines <= MAX_LINES, "README.md has " + lines + " lines; move detail to docs/ (at most " + MAX_LINES + ")");
  }

  @Test
  void theReadmeLinksEveryDocsPage() throws IOException {
    String readme = Files.readString(ROOT.resolve("README.md"));
    List<String> unlinked;
    try (Stream<Path> pages = Files.list(ROOT.resolve("docs"))) {
      unlinked = pages.map(p -> "docs/" + p.getFileName())
          .filter(p -> p.endsWith(".md"))
          .filter(p -> !readme.contains("](" + p + ")") && !readme.contains("](" + p + "#"))
          .sorted()
          .toList();
    }
    assertEquals(List.of(), unlinked, "docs pages the README does not link");
  }
}
