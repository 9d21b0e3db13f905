package dev.leasehold.spec.sim;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * RuntimeMutant is one textual mutation of a source file of core's runtime, compiled into a
 * temporary directory and run in a class loader of its own, so the simulation can be pointed
 * at it with no hook in production code: {@link #load()} returns a loader whose path is
 * [mutant classes, test classpath...] over the platform class loader, so the mutated classes
 * shadow core's own and everything else (core, the simulation, SLF4J) loads afresh beside them.
 *
 * <p>Not thread-safe.
 */
public final class RuntimeMutant implements AutoCloseable {
  private static final Path CORE_SOURCES = Path.of("..", "core", "src", "main", "java");

  private final String name;
  private final Path dir;
  private final Path out;
  private URLClassLoader loader;

  /**
   * RuntimeMutant replaces the one occurrence of {@code from} by {@code to} in {@code source}
   * (a path under core's {@code src/main/java}) and compiles the result against the test
   * classpath; it fails when {@code from} is not there exactly once, so a change to the
   * runtime that moves the code makes the test say so.
   */
  public RuntimeMutant(String name, String source, String from, String to) throws IOException {
    this.name = name;
    Path file = CORE_SOURCES.resolve(source);
    String text = Files.readString(file, StandardCharsets.UTF_8);
    int at = text.indexOf(from);
    if (at < 0 || text.indexOf(from, at + 1) >= 0) {
      throw new IllegalStateException(name + ": expected exactly one \"" + from + "\" in " + file.toAbsolutePath()
          + "; the runtime changed, update the mutation");
    }
    this.dir = Files.createTempDirectory("leasehold-mutant-");
    try {
      Path src = dir.resolve("src").resolve(source);
      Files.createDirectories(src.getParent());
      Files.writeString(src, text.substring(0, at) + to + text.substring(at + from.length()), StandardCharsets.UTF_8);
      this.out = Files.createDirectories(dir.resolve("classes"));
      compile(src);
    } catch (IOException | RuntimeException e) {
      deleteTree(dir);
      throw e;
    }
  }

  private void compile(Path src) throws IOException {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    if (javac == null) {
      throw new IllegalStateException("no system Java compiler: run the tests on a JDK");
    }
    StringWriter errors = new StringWriter();
    try (StandardJavaFileManager files = javac.getStandardFileManager(null, null, StandardCharsets.UTF_8)) {
      List<String> options = List.of("-d", out.toString(), "-cp", String.join(File.pathSeparator, testClasspath()),
          "--release", "17", "-proc:none", "-nowarn");
      boolean ok = javac.getTask(errors, files, null, options, null, files.getJavaFileObjects(src)).call();
      if (!ok) {
        throw new IllegalStateException(name + ": the mutant does not compile:\n" + errors);
      }
    }
  }

  /** load returns the mutant's class loader (child-first by construction: its parent is the platform loader). */
  public ClassLoader load() throws MalformedURLException {
    if (loader == null) {
      List<URL> urls = new ArrayList<>();
      urls.add(out.toUri().toURL());
      for (String entry : testClasspath()) {
        urls.add(Path.of(entry).toUri().toURL());
      }
      loader = new URLClassLoader("mutant-" + name, urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
    }
    return loader;
  }

  /** codeSourceOf tells where the mutant's loader found {@code className} (to show the mutant is the one in use). */
  public String codeSourceOf(String className) throws ReflectiveOperationException, MalformedURLException {
    return load().loadClass(className).getProtectionDomain().getCodeSource().getLocation().toString();
  }

  /** classesUri is where the mutated classes are. */
  public String classesUri() throws MalformedURLException {
    return out.toUri().toURL().toString();
  }

  /** firstViolation runs {@link SimSearch#firstViolation} inside the mutant's loader. */
  String[] firstViolation(long firstSeed, long count, String checks) throws ReflectiveOperationException, IOException {
    Class<?> search = load().loadClass(SimSearch.class.getName());
    try {
      return (String[]) search.getMethod("firstViolation", long.class, long.class, String.class)
          .invoke(null, firstSeed, count, checks);
    } catch (InvocationTargetException e) {
      throw new IllegalStateException(name + ": the simulation failed in the mutant's loader", e.getCause());
    }
  }

  /**
   * testClasspath is this JVM's classpath; when Surefire hands it over as a manifest-only jar,
   * the jar's Class-Path entries.
   */
  static List<String> testClasspath() {
    List<String> entries = new ArrayList<>();
    for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!e.isBlank()) {
        entries.add(e);
      }
    }
    if (entries.size() == 1 && entries.get(0).endsWith(".jar")) {
      try (JarFile jar = new JarFile(entries.get(0))) {
        Manifest mf = jar.getManifest();
        String cp = mf == null ? null : mf.getMainAttributes().getValue("Class-Path");
        if (cp != null) {
          List<String> out = new ArrayList<>();
          for (String u : cp.trim().split("\\s+")) {
            out.add(Path.of(java.net.URI.create(u)).toString());
          }
          return out;
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return entries;
  }

  /** close closes the mutant's class loader and deletes its sources and classes. */
  @Override
  public void close() throws IOException {
    try {
      if (loader != null) {
        loader.close();
      }
    } finally {
      deleteTree(dir);
    }
  }

  private static void deleteTree(Path root) throws IOException {
    try (var all = Files.walk(root)) {
      for (Path p : (Iterable<Path>) all.sorted(java.util.Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }
}
