package dev.leasehold;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The module exports the API, the backends' builders and the metrics binder, never the runtime
 * or the machine (those only to the test kit); only the binder's package touches the optional
 * Micrometer.
 */
class ModuleBoundaryTest {
  @Test
  void onlyTheApiAndTheBackendsAreExported() throws IOException {
    ModuleDescriptor d;
    try (InputStream in = Files.newInputStream(Path.of("target/classes/module-info.class"))) {
      d = ModuleDescriptor.read(in);
    }
    Set<String> exported =
        d.exports().stream()
            .filter(e -> !e.isQualified())
            .map(ModuleDescriptor.Exports::source)
            .collect(Collectors.toCollection(TreeSet::new));
    assertEquals("dev.leasehold.core", d.name());
    assertEquals(
        Set.of("dev.leasehold", "dev.leasehold.etcd", "dev.leasehold.jdbc", "dev.leasehold.local",
            "dev.leasehold.micrometer", "dev.leasehold.select"),
        exported);
    // The test kit alone reaches the internals: the runtime and the machine, and the local
    // store's package-private constructor.
    Set<String> toTheKit =
        d.exports().stream()
            .filter(ModuleDescriptor.Exports::isQualified)
            .map(e -> e.source() + " to " + e.targets())
            .collect(Collectors.toCollection(TreeSet::new));
    assertEquals(
        Set.of("dev.leasehold.etcd.protocol to [dev.leasehold.test]", "dev.leasehold.runtime to [dev.leasehold.test]"),
        toTheKit);
    assertEquals(
        Set.of("dev.leasehold.local to [dev.leasehold.test]"),
        d.opens().stream().map(o -> o.source() + " to " + o.targets()).collect(Collectors.toSet()));
    // Micrometer is optional: read only if present at run time.
    ModuleDescriptor.Requires micrometer =
        d.requires().stream().filter(r -> r.name().equals("micrometer.core")).findFirst().orElseThrow();
    assertTrue(micrometer.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC), micrometer.toString());
    // The internal packages exist and stay unexported.
    for (String internal : Set.of("runtime", "etcd/protocol")) {
      assertEquals(true, Files.isDirectory(Path.of("target/classes/dev/leasehold", internal)), internal);
    }
  }

  @Test
  void noClassOutsideTheMicrometerPackageReferencesMicrometer() throws IOException {
    // Micrometer is an optional dependency: a class that names it anywhere in its constant pool
    // (a field, a signature, a call) could fail to load without it.
    Path classes = Path.of("target/classes");
    byte[] needle = "io/micrometer".getBytes(StandardCharsets.US_ASCII);
    List<String> offenders;
    try (Stream<Path> all = Files.walk(classes)) {
      offenders =
          all.filter(p -> p.toString().endsWith(".class"))
              .filter(p -> !classes.relativize(p).startsWith(Path.of("dev/leasehold/micrometer")))
              .filter(p -> contains(read(p), needle))
              .map(p -> classes.relativize(p).toString())
              .collect(Collectors.toList());
    }
    assertEquals(List.of(), offenders);
    // The check is not vacuous: the binder does reference it.
    assertTrue(contains(read(classes.resolve("dev/leasehold/micrometer/LeaseholdMetrics.class")), needle));
  }

  private static byte[] read(Path p) {
    try {
      return Files.readAllBytes(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean contains(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }
}
