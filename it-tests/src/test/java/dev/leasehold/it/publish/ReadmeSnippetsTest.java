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
 * ReadmeSnippetsTest compiles every {@code ```java} block of README.md as written, each as the
 * body of a method of a {@link ReadmeContext} subclass, against this module's class path (core,
 * jetcd, the JDBC driver). A block preceded by a line {@code <!-- snippet: not compiled: REASON
 * -->} is skipped (it needs a class path this module does not have, such as Spring's) and must
 * say why. A snippet that declares members (it starts with an annotation or a modifier) is
 * compiled at class level instead.
 */
class ReadmeSnippetsTest {
  private static final Path README = Path.of("..", "README.md").toAbsolutePath().normalize();
  private static final String SKIP = "<!-- snippet: not compiled:";
  private static final List<String> IMPORTS =
      List.of(
          "dev.leasehold.*", "dev.leasehold.LeadershipEvent.Cause", "dev.leasehold.etcd.*",
          "dev.leasehold.jdbc.*", "dev.leasehold.select.*",
          "dev.leasehold.local.*", "io.etcd.jetcd.Client", "io.etcd.jetcd.ByteSequence",
          "io.etcd.jetcd.op.Op", "io.etcd.jetcd.options.PutOption", "java.time.Duration",
          "java.nio.file.Path", "java.sql.Connection", "java.sql.SQLException",
          "java.util.*", "java.util.concurrent.*", "javax.sql.DataSource");

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

  static String unit(Snippet s, String className) {
    StringBuilder src = new StringBuilder("package readme;\n");
    for (String imp : IMPORTS) {
      src.append("import ").append(imp).append(";\n");
    }
    String first = s.code().stripLeading();
    boolean members = first.startsWith("@") || first.startsWith("public ") || first.startsWith("private ")
        || first.startsWith("class ");
    src.append("// README.md line ").append(s.line()).append('\n');
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
  void everyJavaSnippetInTheReadmeCompilesAsWritten(@TempDir Path dir) throws Exception {
    List<Snippet> snippets = snippets(Files.readAllLines(README));
    assertFalse(snippets.isEmpty(), "README.md has no ```java snippets");
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertNotNull(javac, "a JDK is needed to compile the README's snippets");
    List<Path> sources = new ArrayList<>();
    Path pkg = Files.createDirectories(dir.resolve("src/readme"));
    for (int i = 0; i < snippets.size(); i++) {
      String name = "Line" + snippets.get(i).line();
      Path file = pkg.resolve(name + ".java");
      Files.writeString(file, unit(snippets.get(i), name));
      sources.add(file);
    }
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
      assertEquals("", ok ? "" : report.toString(), "README.md snippets must compile (file LineN = README line N)");
    }
  }

  private static String classPath() throws URISyntaxException {
    // Surefire may pass the class path in a manifest-only jar; javac follows its Class-Path.
    String own = Path.of(ReadmeContext.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    return own + java.io.File.pathSeparator + System.getProperty("java.class.path");
  }
}
