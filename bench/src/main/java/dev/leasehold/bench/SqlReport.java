package dev.leasehold.bench;

import dev.leasehold.bench.contender.JdbcKind;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * SqlReport is what the SQL benches' reports (MariaDB, PostgreSQL) share: the run they describe, where they go, the
 * opening paragraph, the machine's first rows, the graceful-handover and crash-failover plots and tables, the
 * problems, the CSV rows and the file itself.
 *
 * <p>Not thread-safe: one report is written by one thread.
 */
abstract class SqlReport extends MarkdownReport {
  /** CSV_HEADER is the first line of every SQL report's samples file. */
  static final String CSV_HEADER = "scenario,contender,ttl_ms,trial,value_ms\n";

  protected final Results run;
  protected final Path dir;
  protected final String stem;

  SqlReport(Results run, Path dir, String stem) {
    this.run = run;
    this.dir = dir;
    this.stem = stem;
  }

  /**
   * write produces {@code <stem>.md}, its plots and {@code <stem>-samples.csv}, and returns the .md path: the
   * samples, then the title and opening paragraph, the report's own sections, and the run's problems.
   */
  final Path write() throws IOException {
    StringBuilder csv = new StringBuilder(CSV_HEADER);
    samples(csv);
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(stem + "-samples.csv"), csv.toString(), StandardCharsets.UTF_8);
    opening(title(), what());
    sections();
    problems(problems());
    Path out = dir.resolve(stem + ".md");
    Files.writeString(out, md.toString(), StandardCharsets.UTF_8);
    return out;
  }

  /** title is the report's heading, before the run's name. */
  protected abstract String title();

  /** what says what was measured on which server, for the opening paragraph. */
  protected abstract String what();

  /** samples appends every sample of the run to the CSV, with {@link #csvRows}. */
  protected abstract void samples(StringBuilder csv);

  /** sections writes the report's sections; a phase that did not run gets no section and no empty plot. */
  protected abstract void sections() throws IOException;

  /** problems lists the trials or phases that failed in the run. */
  protected abstract List<String> problems();

  /** opening writes the title and the paragraph that names {@code what} was measured, the command and the time. */
  private void opening(String title, String what) {
    md.append("# ").append(title).append(", ").append(stem).append("\n\n");
    p(what + " in one run of the bench's main class with `" + run.command + "` (what `bench/run.sh "
        + run.command + "` runs after its build) (wall time "
        + String.format(Locale.ROOT, "%.1f", run.wallSeconds / 60) + " min, started "
        + DateTimeFormatter.ISO_INSTANT.format(Instant.ofEpochMilli(run.startedAtMillis).atOffset(ZoneOffset.UTC))
        + "). Every figure below was measured in this run.");
  }

  /** machineRows are the rows every machine table starts with: CPU, memory, OS and JDK. */
  protected final List<List<String>> machineRows() {
    MachineInfo m = run.machine;
    return new ArrayList<>(List.of(
        List.of("CPU", m.cpu() + ", " + m.cores() + " cores (nproc)"),
        List.of("memory", m.memory()),
        List.of("OS", m.os()),
        List.of("JDK", m.jdk())));
  }

  /** loadRow is the run's load average at its start and its end. */
  protected final List<String> loadRow() {
    return List.of("load average (1/5/15 min)", "at start " + run.loadBefore + ", at end " + run.loadAfter);
  }

  /** handoverPlot draws the handover CDF of every contender, on a log scale. */
  protected final Path handoverPlot(String server, Map<JdbcKind, List<Double>> handover) throws IOException {
    Map<String, List<Double>> h = new LinkedHashMap<>();
    handover.forEach((k, v) -> h.put(k.label(), v));
    return Plots.cdf(dir.resolve(stem + "-handover-cdf"), server + ": graceful handover (resign → next elected)",
        "milliseconds (log scale)", h, true);
  }

  /** crashPlot draws the crash-failover CDF of every contender at every TTL. */
  protected final Path crashPlot(String server, Map<Integer, Map<JdbcKind, List<Double>>> crash) throws IOException {
    Map<String, List<Double>> c = new LinkedHashMap<>();
    crash.forEach((ttl, m) -> m.forEach((k, v) -> c.put(k.label() + ", TTL " + ReportFormat.ms(ttl), v)));
    return Plots.cdf(dir.resolve(stem + "-crash-failover-cdf"), server + ": crash failover (SIGKILL → next elected)",
        "milliseconds", c, false);
  }

  /** handoverTable writes one percentile row per contender. */
  protected final void handoverTable(Map<JdbcKind, List<Double>> handover) {
    List<List<String>> rows = new ArrayList<>();
    handover.forEach((k, v) -> rows.add(ReportFormat.statsRow(k.label(), ReportFormat.stats(v))));
    table(List.of("contender", "n", "p50", "p90", "p99", "max"), rows);
  }

  /** crashTable writes one percentile row per contender and TTL, with the TTL + 1 s bound beside it. */
  protected final void crashTable(Map<Integer, Map<JdbcKind, List<Double>>> crash) {
    List<List<String>> rows = new ArrayList<>();
    crash.forEach((ttl, m) -> m.forEach((k, v) -> {
      List<String> row = new ArrayList<>(ReportFormat.statsRow(k.label(), ReportFormat.stats(v)));
      row.add(1, ReportFormat.ms(ttl));
      row.add(ReportFormat.ms(ttl + 1000));
      rows.add(row);
    }));
    table(List.of("contender", "TTL", "n", "p50", "p90", "p99", "max", "TTL + 1 s"), rows);
  }

  private void problems(List<String> problems) {
    if (!problems.isEmpty()) {
      h2("Problems during the run");
      problems.forEach(s -> md.append("- ").append(s).append('\n'));
      md.append('\n');
    }
  }

  /** csvRows appends one CSV line per sample; NaN, a trial without that figure, is left empty. */
  static void csvRows(StringBuilder c, String scenario, String contender, int ttl, List<Double> v) {
    for (int i = 0; i < v.size(); i++) {
      c.append('"').append(scenario.replace("\"", "'")).append("\",\"").append(contender).append("\",")
          .append(ttl).append(',').append(i).append(',')
          .append(Double.isNaN(v.get(i)) ? "" : String.format(Locale.ROOT, "%.3f", v.get(i))).append('\n');
    }
  }
  /**
   * partitionSection writes the stale-leader window under a partition of the leader from {@code process} (the
   * server's process name), for every contender in {@code partition}, with the CDF in {@code png}.
   */
  protected final void partitionSection(String server, String process,
      Map<JdbcKind, List<Results.PartitionTrial>> partition, int ttlMillis, Path png) {
    h2("Stale-leader window under a partition of the leader from " + process);
    p("Each candidate JVM reaches " + process + " only through its own `TcpProxy` (it-harness chaos tools). At t0 the "
        + "leader's proxy starts dropping every byte, both ways, including a FIN (connections stay open). "
        + "Window = the old leader's step-down callback (the moment it knows it lost, after which it no "
        + "longer acts) minus the new leader's elected callback: negative means the old one stopped "
        + "before the new one started; positive means two leaders at once for that long. TTL "
        + ReportFormat.ms(ttlMillis) + ". A leader that has not stepped down "
        + ReportFormat.ms(3.0 * ttlMillis + 5000) + " after the new election counts as "
        + "\"never\" (and as an overlap).");
    List<List<String>> rows = new ArrayList<>();
    partition.forEach((k, ts) -> {
      List<Double> win = windows(ts);
      long stepped = ts.stream().filter(Results.PartitionTrial::steppedDown).count();
      long overlaps = ts.stream().filter(t -> !t.steppedDown() || t.windowMs() >= 0).count();
      Stats ws = stats(win);
      Stats el = stats(ts.stream().map(Results.PartitionTrial::newLeaderMs).toList());
      Stats dn = stats(ts.stream().filter(Results.PartitionTrial::steppedDown)
          .map(Results.PartitionTrial::stepDownMs).toList());
      rows.add(List.of(k.label(), Integer.toString(ts.size()), stepped + "/" + ts.size(),
          overlaps + "/" + ts.size(), ws == null ? "–" : signed(ws.min()), ws == null ? "–" : signed(ws.p50()),
          ws == null ? "–" : signed(ws.p99()), ws == null ? "–" : signed(ws.max()),
          dn == null ? "–" : ReportFormat.ms(dn.p50()), el == null ? "–" : ReportFormat.ms(el.p50())));
    });
    table(List.of("contender", "n", "stepped down", "overlaps (window ≥ 0 or never)", "window min", "p50",
        "p99", "max", "t0 → step-down p50", "t0 → new leader p50"), rows);
    img(server + " stale-leader window CDF", png);
  }

  /** partitionTarget adds the row "stale-leader window always negative" for Leasehold's trials, if any. */
  protected static void partitionTarget(List<List<String>> rows, List<Results.PartitionTrial> pt) {
    if (pt != null && !pt.isEmpty()) {
      boolean all = pt.stream().allMatch(Results.PartitionTrial::steppedDown);
      double max = pt.stream().mapToDouble(Results.PartitionTrial::windowMs).max().orElse(Double.NaN);
      rows.add(List.of("stale-leader window always negative", "max " + signed(max) + " over " + pt.size()
          + " partitions" + (all ? "" : ", some never stepped down"), verdict(all && max < 0)));
    }
  }

  /** partitionSamples adds the partition trials' CSV rows. */
  protected static void partitionSamples(StringBuilder c, Map<JdbcKind, List<Results.PartitionTrial>> partition,
      int ttlMillis) {
    partition.forEach((k, v) -> {
      csvRows(c, "partition: new leader", k.label(), ttlMillis,
          v.stream().map(Results.PartitionTrial::newLeaderMs).toList());
      csvRows(c, "partition: step-down", k.label(), ttlMillis,
          v.stream().map(t -> t.steppedDown() ? t.stepDownMs() : Double.NaN).toList());
    });
  }

  /** windows are the stale-leader windows of the trials whose leader stepped down. */
  protected static List<Double> windows(List<Results.PartitionTrial> ts) {
    return ts.stream().filter(Results.PartitionTrial::steppedDown).map(Results.PartitionTrial::windowMs).toList();
  }

  /** stats summarises {@code v}, or null when there is nothing. */
  protected static Stats stats(List<Double> v) {
    return v == null || v.isEmpty() ? null : Stats.of(v);
  }

  /** signed formats a window with its sign. */
  protected static String signed(double v) {
    return Double.isNaN(v) ? "–" : (v >= 0 ? "+" : "−") + ReportFormat.ms(Math.abs(v));
  }

  /** f1 formats a rate to one decimal. */
  protected static String f1(double v) {
    return String.format(java.util.Locale.ROOT, "%.1f", v);
  }

  /** verdict is a target's "met" or a bold "missed". */
  protected static String verdict(boolean ok) {
    return ok ? "met" : "**missed**";
  }
}
