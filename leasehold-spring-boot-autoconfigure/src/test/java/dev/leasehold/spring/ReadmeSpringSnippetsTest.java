package dev.leasehold.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ReadmeSpringSnippetsTest compiles, as written, the {@code ```java} blocks of README.md and
 * docs/*.md that it-tests' ReadmeSnippetsTest skips for want of Spring's class path: those whose
 * skip comment names this test. Each is a whole source file (it starts with {@code package} or
 * {@code import}) or a top-level class, which gets the imports below and a package of its own;
 * all are compiled together against this module's test class path.
 */
class ReadmeSpringSnippetsTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Pattern CLASS = Pattern.compile("\\bclass (\\w+)");
  private static final Pattern PACKAGE = Pattern.compile("^\\s*package ([\\w.]+);");
  private static final List<String> IMPORTS = List.of(
      "dev.leasehold.*", "dev.leasehold.etcd.*", "dev.leasehold.jdbc.*", "dev.leasehold.spring.*",
      "io.etcd.jetcd.*", "java.sql.Connection", "java.sql.SQLException", "javax.sql.DataSource",
      "io.etcd.jetcd.op.Op", "io.etcd.jetcd.options.PutOption",
      "org.springframework.beans.factory.annotation.Value",
      "org.springframework.boot.SpringApplication",
      "org.springframework.boot.autoconfigure.SpringBootApplication",
      "org.springframework.context.annotation.Bean",
      "org.springframework.context.annotation.Configuration",
      "org.springframework.context.event.EventListener",
      "org.springframework.scheduling.annotation.EnableScheduling",
      "org.springframework.scheduling.annotation.Scheduled", "org.springframework.stereotype.Component",
      "static java.nio.charset.StandardCharsets.UTF_8");

  static List<Path> docs() throws IOException {
    List<Path> out = new ArrayList<>(List.of(ROOT.resolve("README.md")));
    try (Stream<Path> s = Files.list(ROOT.resolve("docs"))) {
      s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(out::add);
    }
    return out;
  }

  @Test
  void theSpringSnippetsOfTheReadmeAndDocsCompileAsWritten(@TempDir Path dir) throws Exception {
    List<Path> sources = new ArrayList<>();
    for (Path doc : docs()) {
      List<String> lines = Files.readAllLines(doc);
      String where = ROOT.relativize(doc).toString();
      for (int i = 1; i < lines.size(); i++) {
        if (!lines.get(i).trim().equals("```java") || !lines.get(i - 1).contains("ReadmeSpringSnippetsTest")) {
          continue;
        }
        int start = i + 1;
        StringBuilder code = new StringBuilder();
        for (i = start; !lines.get(i).trim().equals("```"); i++) {
          code.append(lines.get(i)).append('\n');
        }
        Matcher m = CLASS.matcher(code);
        assertThat(m.find()).as("%s line %d declares a class", where, start + 1).isTrue();
        String first = code.toString().stripLeading();
        StringBuilder src = new StringBuilder();
        String pkg;
        if (first.startsWith("package ") || first.startsWith("import ")) {
          Matcher p = PACKAGE.matcher(first);
          pkg = p.find() ? p.group(1) : "readme." + packagePart(where) + ".line" + (start + 1);
          if (!first.startsWith("package ")) {
            src.append("package ").append(pkg).append(";\n");
          }
        } else {
          pkg = "readme." + packagePart(where) + ".line" + (start + 1);
          src.append("package ").append(pkg).append(";\n");
          IMPORTS.forEach(imp -> src.append("import ").append(imp).append(";\n"));
        }
        src.append("// ").append(where).append(" line ").append(start + 1).append('\n').append(code);
        Path file = Files.createDirectories(dir.resolve("src").resolve(pkg.replace('.', '/')))
            .resolve(m.group(1) + ".java");
        Files.writeString(file, src);
        sources.add(file);
      }
    }
    assertThat(sources).as("Spring snippets in the README and docs").isNotEmpty();
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
      assertThat(ok ? "" : report.toString()).as("Spring snippets must compile").isEmpty();
    }
  }

  private static String packagePart(String doc) {
    return doc.replaceAll("[^A-Za-z0-9]", "_").toLowerCase(java.util.Locale.ROOT);
  }
}
