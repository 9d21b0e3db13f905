package dev.leasehold.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ReadmeSpringSnippetsTest compiles, as written, the README's {@code ```java} blocks that
 * it-tests' ReadmeSnippetsTest skips for want of Spring's class path: those whose skip comment
 * names this test. Each is a top-level class, compiled against this module's test class path.
 */
class ReadmeSpringSnippetsTest {
  private static final Path README = Path.of("..", "README.md").toAbsolutePath().normalize();
  private static final Pattern CLASS = Pattern.compile("\\bclass (\\w+)");
  private static final List<String> IMPORTS = List.of(
      "dev.leasehold.*", "dev.leasehold.etcd.*", "dev.leasehold.spring.*", "io.etcd.jetcd.*",
      "io.etcd.jetcd.op.Op", "io.etcd.jetcd.options.PutOption",
      "org.springframework.scheduling.annotation.Scheduled", "org.springframework.stereotype.Component",
      "static java.nio.charset.StandardCharsets.UTF_8");

  @Test
  void theSpringSnippetsOfTheReadmeCompileAsWritten(@TempDir Path dir) throws Exception {
    List<String> lines = Files.readAllLines(README);
    List<Path> sources = new ArrayList<>();
    for (int i = 1; i < lines.size(); i++) {
      if (!lines.get(i).trim().equals("```java") || !lines.get(i - 1).contains("ReadmeSpringSnippetsTest")) {
        continue;
      }
      StringBuilder src = new StringBuilder("package readme;\n");
      IMPORTS.forEach(imp -> src.append("import ").append(imp).append(";\n"));
      int start = i + 1;
      StringBuilder code = new StringBuilder();
      for (i = start; !lines.get(i).trim().equals("```"); i++) {
        code.append(lines.get(i)).append('\n');
      }
      Matcher m = CLASS.matcher(code);
      assertThat(m.find()).as("README line %d declares a class", start + 1).isTrue();
      Path file = Files.createDirectories(dir.resolve("src/line" + (start + 1))).resolve(m.group(1) + ".java");
      Files.writeString(file, src.append("// README.md line ").append(start + 1).append('\n').append(code));
      sources.add(file);
    }
    assertThat(sources).as("README snippets for this test").isNotEmpty();
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, null, null)) {
      String classPath = Path.of(LeaderOnly.class.getProtectionDomain().getCodeSource().getLocation().toURI())
          + File.pathSeparator + System.getProperty("java.class.path");
      boolean ok = javac.getTask(null, files, diagnostics,
          List.of("-classpath", classPath, "-d", Files.createDirectories(dir.resolve("classes")).toString(),
              "-proc:none", "-Xlint:none"),
          null, files.getJavaFileObjectsFromPaths(sources)).call();
      StringBuilder report = new StringBuilder();
      diagnostics.getDiagnostics().forEach(d -> report.append(d).append('\n'));
      assertThat(ok ? "" : report.toString()).as("README Spring snippets must compile").isEmpty();
    }
  }
}
