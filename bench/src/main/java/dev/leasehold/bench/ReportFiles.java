package dev.leasehold.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * ReportFiles writes the files next to {@link Report}'s markdown: the CDF plots of handover, crash
 * failover and the stale-leader window, and the CSV of every sample.
 *
 * <p>Not thread-safe: one report is written by one thread.
 */
final class ReportFiles {
  private final Results r;
  private final Path dir;
  private final String stem;

  ReportFiles(Results results, Path dir, String stem) {
    this.r = results;
    this.dir = dir;
    this.stem = stem;
  }

  Path plotHandover() throws IOException {
    Map<String, List<Double>> s = new LinkedHashMap<>();
    r.handover.forEach((k, v) -> s.put(k.label(), v));
    return Plots.cdf(dir.resolve(stem + "-handover-cdf"), "Graceful handover (resign → next elected)",
        "milliseconds (log scale)", s, true);
  }

  Path plotCrash() throws IOException {
    Map<String, List<Double>> s = new LinkedHashMap<>();
    r.crash.forEach((ttl, m) -> m.forEach((k, v) -> s.put(k.label() + ", TTL " + ttl + " s", v)));
    return Plots.cdf(dir.resolve(stem + "-crash-failover-cdf"), "Crash failover (SIGKILL → next elected)",
        "milliseconds", s, false);
  }

  Path plotPartition() throws IOException {
    Map<String, List<Double>> s = new LinkedHashMap<>();
    r.partition.forEach((k, v) -> s.put(k.label(),
        v.stream().filter(Results.PartitionTrial::steppedDown).map(Results.PartitionTrial::windowMs).toList()));
    return Plots.cdf(dir.resolve(stem + "-stale-window-cdf"),
        "Stale-leader window (old step-down − new elected; > 0 = two leaders)", "milliseconds", s, false);
  }

  void writeCsv() throws IOException {
    StringBuilder c = new StringBuilder("scenario,contender,ttl_s,trial,value_ms\n");
    r.floor.forEach((k, v) -> rowsCsv(c, "floor: " + k, "-", "-", v));
    r.handover.forEach((k, v) -> rowsCsv(c, "handover", k.label(), Integer.toString(r.options.handoverTtl()), v));
    r.crash.forEach((ttl, m) -> m.forEach((k, v) -> rowsCsv(c, "crash", k.label(), ttl.toString(), v)));
    r.partition.forEach((k, v) -> {
      rowsCsv(c, "partition: new leader", k.label(), Integer.toString(r.options.partitionTtl()),
          v.stream().map(Results.PartitionTrial::newLeaderMs).toList());
      rowsCsv(c, "partition: step-down", k.label(), Integer.toString(r.options.partitionTtl()),
          v.stream().map(t -> t.steppedDown() ? t.stepDownMs() : Double.NaN).toList());
    });
    for (Results.ScaleRun s : r.scale) {
      rowsCsv(c, "scale handover x" + s.count() + " " + s.mode(), "Leasehold",
          Integer.toString(r.options.scaleTtl()), s.handovers());
    }
    if (r.session != null) {
      r.session.handover.keySet().forEach(n -> rowsCsv(c, "session handover, " + n + " elections per session",
          "Leasehold EtcdSession", Integer.toString(r.options.session().ttlSeconds()), r.session.handovers(n)));
    }
    Files.writeString(dir.resolve(stem + "-samples.csv"), c.toString(), StandardCharsets.UTF_8);
    if (r.session != null) {
      writeSessionCsv(r.session);
    }
  }

  /** writeSessionCsv writes every figure of the session phase as {@code part,name,value} rows. */
  private void writeSessionCsv(SessionResults s) throws IOException {
    StringBuilder c = new StringBuilder("part,name,value\n");
    s.footprint.forEach((k, v) -> c.append("footprint,").append(k).append(',').append(v).append('\n'));
    Map<String, EtcdMetrics.Rates> idle = new LinkedHashMap<>();
    if (s.baseline != null) {
      idle.put("no client", s.baseline);
    }
    idle.putAll(s.idle);
    idle.forEach((k, v) -> {
      String part = "\"idle: " + k + "\",";
      c.append(part).append("proposals_per_s,").append(String.format(Locale.ROOT, "%.3f", v.proposalsPerSec()))
          .append('\n');
      c.append(part).append("messages_per_s,").append(String.format(Locale.ROOT, "%.3f", v.messagesPerSec()))
          .append('\n');
      v.messagesPerSecByMethod().forEach((m, x) -> c.append(part).append("messages_per_s_").append(m).append(',')
          .append(String.format(Locale.ROOT, "%.3f", x)).append('\n'));
    });
    s.handover.forEach((n, m) -> m.forEach((k, v) -> c.append("handover x").append(n).append(',').append(k)
        .append(",\"").append(v).append("\"\n")));
    Files.writeString(dir.resolve(stem + "-session.csv"), c.toString(), StandardCharsets.UTF_8);
  }

  private static void rowsCsv(StringBuilder c, String scenario, String who, String ttl, List<Double> v) {
    for (int i = 0; i < v.size(); i++) {
      c.append('"').append(scenario.replace("\"", "'")).append("\",\"").append(who).append("\",")
          .append(ttl).append(',').append(i).append(',')
          .append(Double.isNaN(v.get(i)) ? "" : String.format(Locale.ROOT, "%.3f", v.get(i))).append('\n');
    }
  }
}
