package dev.leasehold.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The state machine must stay pure: no etcd client, no threads, no clock reads. */
class ProtocolPurityTest {
  private static final List<Pattern> FORBIDDEN =
      List.of(
          Pattern.compile("\\bio\\.etcd\\b"),
          Pattern.compile("\\bio\\.grpc\\b"),
          Pattern.compile("\\bio\\.vertx\\b"),
          Pattern.compile("java\\.util\\.concurrent"),
          Pattern.compile("\\bThread\\b"),
          Pattern.compile("System\\.(nanoTime|currentTimeMillis)"),
          Pattern.compile("\\b(Instant|Clock)\\.now\\b"),
          Pattern.compile("\\bsynchronized\\b"));

  @Test
  void protocolPackageImportsNoEtcdNoConcurrencyAndReadsNoClock() throws IOException {
    Path dir = Path.of("src/main/java/dev/leasehold/protocol");
    List<String> violations = new ArrayList<>();
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files = s.filter(p -> p.toString().endsWith(".java")).toList();
    }
    assertFalse(files.isEmpty(), "no sources found under " + dir.toAbsolutePath());
    for (Path f : files) {
      List<String> lines = Files.readAllLines(f);
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        String code = line.replaceAll("//.*", "");
        if (code.trim().startsWith("*") || code.trim().startsWith("/*")) {
          continue;
        }
        for (Pattern p : FORBIDDEN) {
          if (p.matcher(code).find()) {
            violations.add(f.getFileName() + ":" + (i + 1) + ": " + line.trim());
          }
        }
      }
    }
    assertEquals(List.of(), violations);
  }

  @Test
  void theCheckCatchesAForbiddenImport() {
    String sample = "import io.etcd.jetcd.Client;";
    assertEquals(true, FORBIDDEN.get(0).matcher(sample).find());
    assertEquals(true, FORBIDDEN.get(3).matcher("import java.util.concurrent.Executors;").find());
  }
}
