package dev.leasehold.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/** MachineInfo is what the report states about the machine and the software it ran. Immutable. */
record MachineInfo(String cpu, int cores, String memory, String os, String jdk, String etcd,
    String jetcd, String leasehold) {

  static MachineInfo detect(String etcdBinary) {
    return new MachineInfo(
        procField("/proc/cpuinfo", "model name"),
        Runtime.getRuntime().availableProcessors(),
        memTotal(),
        System.getProperty("os.name") + " " + System.getProperty("os.version") + " ("
            + System.getProperty("os.arch") + ")",
        System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
            + " (" + System.getProperty("java.vendor") + ")",
        etcdVersion(etcdBinary),
        version("jetcd.version"),
        version("leasehold.version"));
  }

  /** loadAverage is the first three fields of /proc/loadavg (1, 5 and 15 minutes). */
  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return f[0] + " / " + f[1] + " / " + f[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  private static String procField(String file, String field) {
    try {
      for (String line : Files.readAllLines(Path.of(file))) {
        if (line.startsWith(field)) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException e) {
      // Not Linux, or not readable.
    }
    return "unknown";
  }

  private static String memTotal() {
    String kb = procField("/proc/meminfo", "MemTotal").replaceAll("[^0-9]", "");
    if (kb.isEmpty()) {
      return "unknown";
    }
    return String.format("%.1f GiB", Long.parseLong(kb) / 1024.0 / 1024.0);
  }

  private static String etcdVersion(String binary) {
    try {
      Process p = new ProcessBuilder(binary, "--version").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor(10, TimeUnit.SECONDS);
      List<String> lines = out.lines().toList();
      return lines.isEmpty() ? "unknown" : lines.get(0).replace("etcd Version:", "").trim();
    } catch (IOException e) {
      return "unknown";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }

  private static String version(String key) {
    Properties p = new Properties();
    try (InputStream in = MachineInfo.class.getResourceAsStream("/bench-versions.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      // Reported as unknown.
    }
    return p.getProperty(key, "unknown");
  }
}
