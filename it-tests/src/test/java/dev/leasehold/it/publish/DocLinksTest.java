package dev.leasehold.it.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * DocLinksTest fails on a broken relative link or {@code #anchor} in the project's Markdown: the
 * README, the changelog, docs/, protocol-spec/, it-tests/ and bench/. A link's file must exist
 * (relative to the linking file), and its anchor must be a heading of the target file as GitHub
 * names it. External links (with a scheme) are not fetched. Links in code blocks and code spans
 * are not links, and are skipped.
 */
class DocLinksTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Pattern LINK = Pattern.compile("!?\\[(?:[^\\]\\[]|\\[[^\\]]*\\])*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
  private static final Pattern REFERENCE = Pattern.compile("^\\s{0,3}\\[[^\\]]+\\]:\\s*<?(\\S+?)>?(?:\\s.*)?$");
  private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:");
  private static final Pattern HEADING = Pattern.compile("^ {0,3}(#{1,6})\\s+(.*?)\\s*#*\\s*$");
  private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"");
  private static final Pattern INLINE_LINK = Pattern.compile("!?\\[([^\\]]*)\\]\\([^)]*\\)");
  // github-slugger drops every character that is not a letter, mark, digit, connector (_),
  // space or hyphen.
  private static final Pattern NOT_SLUG = Pattern.compile("[^\\p{L}\\p{M}\\p{Nd}\\p{Pc} -]");

  /** Link is one link as written: where it is, and its target. */
  record Link(Path file, int line, String target) {
    @Override
    public String toString() {
      return ROOT.relativize(file) + ":" + line + ": " + target;
    }
  }

  static List<Path> markdownFiles() throws IOException {
    List<Path> files = new ArrayList<>();
    for (String top : List.of("README.md", "CHANGELOG.md")) {
      files.add(ROOT.resolve(top));
    }
    for (String dir : List.of("docs", "protocol-spec", "it-tests", "bench")) {
      boolean deep = dir.equals("bench");
      try (Stream<Path> s = deep ? Files.walk(ROOT.resolve(dir)) : Files.list(ROOT.resolve(dir))) {
        s.filter(p -> p.toString().endsWith(".md"))
            .filter(p -> !ROOT.relativize(p).toString().contains("target"))
            .sorted()
            .forEach(files::add);
      }
    }
    return files;
  }

  /** lines is the file's text with fenced code blocks blanked, so line numbers stay true. */
  static List<String> prose(List<String> lines) {
    List<String> out = new ArrayList<>(lines.size());
    String fence = null;
    for (String line : lines) {
      String t = line.stripLeading();
      if (fence == null && (t.startsWith("```") || t.startsWith("~~~"))) {
        fence = t.substring(0, 3);
        out.add("");
      } else if (fence != null) {
        if (t.startsWith(fence)) {
          fence = null;
        }
        out.add("");
      } else {
        out.add(line);
      }
    }
    return out;
  }

  /** withoutCodeSpans blanks `code spans`, whose brackets are not links. */
  static String withoutCodeSpans(String line) {
    return line.replaceAll("(`+)(?:(?!\\1).)+?\\1", "");
  }

  static List<Link> links(Path file) throws IOException {
    List<String> lines = prose(Files.readAllLines(file));
    List<Link> out = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = withoutCodeSpans(lines.get(i));
      Matcher m = LINK.matcher(line);
      while (m.find()) {
        out.add(new Link(file, i + 1, m.group(1)));
      }
      Matcher r = REFERENCE.matcher(line);
      if (r.matches()) {
        out.add(new Link(file, i + 1, r.group(1)));
      }
    }
    return out;
  }

  /**
   * slug is GitHub's anchor for a heading's text: markup removed, lower case, punctuation
   * dropped, spaces as hyphens.
   */
  static String slug(String heading) {
    String text = INLINE_LINK.matcher(heading).replaceAll("$1");
    text = text.replaceAll("<[^>]+>", "");
    return NOT_SLUG.matcher(text.toLowerCase(Locale.ROOT)).replaceAll("").replace(' ', '-');
  }

  /** anchors lists every anchor of a Markdown file: its headings' slugs (repeats get -1, -2, ...). */
  static Set<String> anchors(Path file) throws IOException {
    Set<String> out = new LinkedHashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    for (String line : prose(Files.readAllLines(file))) {
      Matcher h = HEADING.matcher(line);
      if (h.matches()) {
        String base = slug(h.group(2));
        int n = seen.merge(base, 1, Integer::sum) - 1;
        out.add(n == 0 ? base : base + "-" + n);
      }
      Matcher a = HTML_ANCHOR.matcher(line);
      while (a.find()) {
        out.add(a.group(1));
      }
    }
    return out;
  }

  /** problem says what is wrong with {@code link}, or returns null when it resolves. */
  static String problem(Link link) {
    String target = link.target();
    if (SCHEME.matcher(target).find() || target.startsWith("//")) {
      return null;
    }
    int hash = target.indexOf('#');
    String path = hash < 0 ? target : target.substring(0, hash);
    String anchor = hash < 0 ? null : URLDecoder.decode(target.substring(hash + 1), StandardCharsets.UTF_8);
    Path file = path.isEmpty()
        ? link.file()
        : link.file().getParent().resolve(URLDecoder.decode(path, StandardCharsets.UTF_8)).normalize();
    if (!Files.exists(file)) {
      return "no such file: " + ROOT.relativize(file);
    }
    if (anchor == null) {
      return null;
    }
    if (!file.toString().endsWith(".md")) {
      return "an anchor into a file that is not Markdown: " + ROOT.relativize(file);
    }
    try {
      Set<String> known = anchors(file);
      return known.contains(anchor) ? null : "no heading for #" + anchor + " in " + ROOT.relativize(file)
          + " (its anchors: " + String.join(", ", known) + ")";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void everyRelativeLinkAndAnchorInTheDocsResolves() throws IOException {
    List<Path> files = markdownFiles();
    assertTrue(files.contains(ROOT.resolve("docs/operations.md")), "docs/ was found: " + files);
    List<String> broken = new ArrayList<>();
    int checked = 0;
    for (Path f : files) {
      for (Link link : links(f)) {
        checked++;
        String p = problem(link);
        if (p != null) {
          broken.add(link + " -> " + p);
        }
      }
    }
    assertTrue(checked > 100, "only " + checked + " links found: the scan is broken");
    assertEquals("", String.join("\n", broken), broken.size() + " broken links in " + files.size() + " files");
  }

  @Test
  void slugsFollowGitHubsRules() {
    assertEquals("1-get-the-artifacts", slug("1. Get the artifacts"));
    assertEquals("spring-boot-health-groups-not-actuatorhealth-for-probes",
        slug("Spring Boot: health groups, not /actuator/health, for probes"));
    assertEquals("mariadb-leasehold-jdbc-against-get_lock-alone", slug("MariaDB: Leasehold-JDBC against GET_LOCK alone"));
    assertEquals("leaderonly", slug("`@LeaderOnly`"));
    assertEquals("the-command-line", slug("The [command line](docs/cli.md)"));
    assertEquals("mariadb--mysql-backend", slug("MariaDB / MySQL backend"));
    assertEquals("etcd-against-jetcds-election", slug("etcd against jetcd's Election"));
  }

  @Test
  void repeatedHeadingsGetNumberedAnchors(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
    Path f = Files.writeString(dir.resolve("x.md"), "# A\n## Measured\n```\n## Not a heading\n```\n## Measured\n");
    assertEquals(Set.of("a", "measured", "measured-1"), anchors(f));
  }

  @Test
  void brokenLinksAreFoundAndCodeIsNotALink(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
    Files.writeString(dir.resolve("b.md"), "# Here\n");
    Path a = Files.writeString(dir.resolve("a.md"),
        "# Top\n[ok](b.md#here) [self](#top) [web](https://example.org/x#y)\n"
            + "[gone](c.md) [bad anchor](b.md#there) `[code](nowhere.md)`\n```\n[block](nowhere.md)\n```\n");
    List<String> problems = new ArrayList<>();
    for (Link l : links(a)) {
      String p = problem(l);
      if (p != null) {
        problems.add(l.target());
      }
    }
    assertEquals(List.of("c.md", "b.md#there"), problems);
    assertFalse(links(a).stream().anyMatch(l -> l.target().equals("nowhere.md")));
  }
}
