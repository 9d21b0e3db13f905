package dev.leasehold.it.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ReadmeSnippetsTest compiles every {@code ```java} block of README.md and of docs/*.md as
 * written, against this module's class path (core, jetcd, the JDBC driver, Micrometer, JUnit).
 * A block is one of three kinds, by how it starts:
 *
 * <ul>
 *   <li>a whole source file ({@code package} or {@code import}): compiled as it is, in a package of
 *       its own when it names none;
 *   <li>members (an annotation, a modifier or {@code class}): the body of a {@link ReadmeContext}
 *       subclass;
 *   <li>statements (anything else): the body of a method of such a subclass.
 * </ul>
 *
 * <p>{@link ReadmeContext} holds the application's objects that snippets use without defining. A
 * block preceded by a line {@code <!-- snippet: not compiled: REASON -->} is skipped (it needs a
 * class path this module does not have, such as Spring's) and must say why; Spring's are compiled
 * by ReadmeSpringSnippetsTest in leasehold-spring-boot-autoconfigure.
 */
class ReadmeSnippetsTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final String SKIP = "<!-- snippet: not compiled:";
  private static final List<String> IMPORTS =
      List.of(
          "dev.leasehold.*", "dev.leasehold.LeadershipEvent.Cause", "dev.leasehold.etcd.*",
          "dev.leasehold.jdbc.*", "dev.leasehold.select.*", "dev.leasehold.micrometer.*",
          "io.micrometer.core.instrument.MeterRegistry", "io.micrometer.core.instrument.Metrics",
          "dev.leasehold.local.*", "io.etcd.jetcd.Client", "io.etcd.jetcd.ByteSequence",
          "io.etcd.jetcd.op.Op", "io.etcd.jetcd.options.PutOption", "java.time.Duration",
          "java.nio.file.Path", "java.sql.Connection", "java.sql.SQLException",
          "java.util.*", "java.util.concurrent.*", "javax.sql.DataSource",
          "org.junit.jupiter.api.Test", "static org.junit.jupiter.api.Assertions.*");

  /** docs lists the Markdown files whose snippets are compiled: the README and docs/*.md. */
  static List<Path> docs() throws java.io.IOException {
    List<Path> out = new ArrayList<>(List.of(ROOT.resolve("README.md")));
    try (java.util.stream.Stream<Path> s = Files.list(ROOT.resolve("docs"))) {
      s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(out::add);
    }
    return out;
  }

  record Snippet(int line, String code) {}

  static List<Snippet> snippets(List<String> lines) {
    List<Snippet> out = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (!lines.get(i).trim().equals("```java")) {
        continue;
      }
      boolean skipped = i > 0 && lines.get(i - 1).trim().startsWith(SKIP);
      StringBuilder code = new StringBuilder();
      int start = i + 1;
      for (i = start; i < lines.size() && !lines.get(i).trim().equals("```"); i++) {
        code.append(lines.get(i)).append('\n');
      }
      if (!skipped) {
        out.add(new Snippet(start + 1, code.toString()));
      }
    }
    return out;
  }

  /** pkg is the Java package of a file's snippets: readme.docs_leader_work_md. */
  static String pkg(Path doc) {
    return "readme." + ROOT.relativize(doc).toString().replaceAll("[^A-Za-z0-9]", "_").toLowerCase(java.util.Locale.ROOT);
  }

  static boolean wholeFile(Snippet s) {
    String first = s.code().stripLeading();
    return first.startsWith("package ") || first.startsWith("import ");
  }

  static String unit(Snippet s, String pkg, String className, String where) {
    if (wholeFile(s)) {
      boolean named = s.code().stripLeading().startsWith("package ");
      return (named ? "" : "package " + pkg + "." + className.toLowerCase(java.util.Locale.ROOT) + ";\n")
          + "// " + where + "\n" + s.code();
    }
    StringBuilder src = new StringBuilder("package " + pkg + ";\n");
    for (String imp : IMPORTS) {
      src.append("import ").append(imp).append(";\n");
    }
    String first = s.code().stripLeading();
    boolean members = first.startsWith("@") || first.startsWith("public ") || first.startsWith("private ")
        || first.startsWith("class ");
    src.append("// ").append(where).append('\n');
    src.append("abstract class ").append(className)
        .append(" extends dev.leasehold.it.publish.ReadmeContext {\n");
    if (members) {
      src.append(s.code());
    } else {
      src.append("  void snippet() throws Exception {\n").append(s.code()).append("  }\n");
    }
    return src.append("}\n").toString();
  }

  @Test
  void everyJavaSnippetInTheReadmeAndDocsCompilesAsWritten(@TempDir Path dir) throws Exception {
    assertFalse(snippets(Files.readAllLines(ROOT.resolve("README.md"))).isEmpty(),
        "the README's plain Java quick start must be compiled");
    List<Path> sources = new ArrayList<>();
    for (Path doc : docs()) {
      List<Snippet> snippets = snippets(Files.readAllLines(doc));
      String pkg = pkg(doc);
      Path pkgDir = Files.createDirectories(dir.resolve("src").resolve(pkg.replace('.', '/')));
      for (Snippet s : snippets) {
        String name = "Line" + s.line();
        String where = ROOT.relativize(doc) + " line " + s.line();
        Path file = wholeFile(s)
            ? Files.createDirectories(pkgDir.resolve(name.toLowerCase(java.util.Locale.ROOT))).resolve(publicClass(s) + ".java")
            : pkgDir.resolve(name + ".java");
        Files.writeString(file, unit(s, pkg, name, where));
        sources.add(file);
      }
    }
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertNotNull(javac, "a JDK is needed to compile the snippets");
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    StringWriter out = new StringWriter();
    try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, null, null)) {
      List<String> options =
          List.of("-classpath", classPath(), "-d", Files.createDirectories(dir.resolve("classes")).toString(),
              "-proc:none", "-Xlint:none");
      boolean ok =
          javac.getTask(out, files, diagnostics, options, null, files.getJavaFileObjectsFromPaths(sources))
              .call();
      StringBuilder report = new StringBuilder();
      diagnostics.getDiagnostics().forEach(d -> report.append(d).append('\n'));
      assertEquals("", ok ? "" : report.toString(),
          "snippets must compile (each file starts with a comment naming the Markdown file and line)");
    }
  }

  /** publicClass is the name of the public class a whole-file snippet declares. */
  static String publicClass(Snippet s) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("public\\s+(?:final\\s+)?class\\s+(\\w+)").matcher(s.code());
    return m.find() ? m.group(1) : "Snippet";
  }

  private static String classPath() throws URISyntaxException {
    // Surefire may pass the class path in a manifest-only jar; javac follows its Class-Path.
    String own = Path.of(ReadmeContext.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    return own + java.io.File.pathSeparator + System.getProperty("java.class.path");
  }
}
