package dev.leasehold;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The module exports the API and the backends' builders, never the runtime or the machine. */
class ModuleBoundaryTest {
  @Test
  void onlyTheApiAndTheBackendsAreExported() throws IOException {
    ModuleDescriptor d;
    try (InputStream in = Files.newInputStream(Path.of("target/classes/module-info.class"))) {
      d = ModuleDescriptor.read(in);
    }
    Set<String> exported =
        d.exports().stream()
            .map(ModuleDescriptor.Exports::source)
            .collect(Collectors.toCollection(TreeSet::new));
    assertEquals("dev.leasehold.core", d.name());
    assertEquals(Set.of("dev.leasehold", "dev.leasehold.etcd", "dev.leasehold.jdbc", "dev.leasehold.local", "dev.leasehold.select"), exported);
    // The internal packages exist and stay unexported.
    for (String internal : Set.of("runtime", "protocol")) {
      assertEquals(true, Files.isDirectory(Path.of("target/classes/dev/leasehold", internal)), internal);
    }
  }
}
