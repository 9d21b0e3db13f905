package dev.leasehold.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** EtcdLogs counts warnings in the members' log files, to show how often etcd itself stalled. Stateless. */
final class EtcdLogs {
  private EtcdLogs() {}

  /** count is the number of log lines, over every member's log in {@code dir}, that contain {@code text}. */
  static long count(Path dir, String text) {
    try (Stream<Path> files = Files.list(dir)) {
      long n = 0;
      for (Path f : files.filter(p -> p.toString().endsWith(".log")).toList()) {
        List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
        n += lines.stream().filter(l -> l.contains(text)).count();
      }
      return n;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
