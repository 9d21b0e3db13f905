package dev.leasehold.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Report writes the Markdown report, the CDF plots and a CSV of every sample for one run.
 * Every number in it comes from {@link Results}; the prose around the numbers only names the
 * mechanisms. The sections are written, in order, by {@link ReportSummary}, {@link ReportLatency},
 * {@link ReportCost} and {@link ReportAnalysis}; the plots and the CSV by {@link ReportFiles}.
 * Not thread-safe.
 */
final class Report extends MarkdownReport {
  private final Results r;
  private final Path dir;
  private final String stem;
  private final List<String> missed = new ArrayList<>();

  Report(Results results, Path dir, String stem) {
    this.r = results;
    this.dir = dir;
    this.stem = stem;
  }

  /** write produces {@code <stem>.md}, its plots and {@code <stem>-samples.csv}; returns the .md path. */
  Path write() throws IOException {
    Files.createDirectories(dir);
    ReportFiles files = new ReportFiles(r, dir, stem);
    // A run of the session phase alone has no contenders to compare: its report is the machine and
    // the session section.
    boolean contenders = r.options.phases().stream().anyMatch(p -> !p.equals("session") && !p.equals("spread") && !p.startsWith("mariadb"));
    Path handoverPng = contenders ? files.plotHandover() : null;
    Path crashPng = contenders ? files.plotCrash() : null;
    Path partitionPng = contenders ? files.plotPartition() : null;
    files.writeCsv();

    h1("Leasehold benchmark, " + stem);
    p((contenders ? "Leasehold, jetcd's `Election` client and the seed's polling design, measured side by side on "
        : "Leasehold's `EtcdSession` (many elections on one lease), measured on ")
        + "one 3-member etcd cluster in one run of `bench/run.sh" + (r.command.isBlank() ? "" : " " + r.command)
        + "` (wall time " + String.format(Locale.ROOT, "%.1f", r.wallSeconds / 60) + " min, started "
        + DateTimeFormatter.ISO_INSTANT.format(Instant.ofEpochMilli(r.startedAtMillis).atOffset(ZoneOffset.UTC))
        + "). Every figure below was measured in this run; nothing is copied from elsewhere.");
    // Sections, in this order: ReportSummary fills missed, which ReportAnalysis explains.
    if (contenders) {
      md.append(new ReportSummary(r, missed).markdown());
      md.append(new ReportLatency(r, handoverPng, crashPng, partitionPng).markdown());
      md.append(new ReportCost(r).markdown());
    } else {
      md.append(new ReportSummary(r, missed).machineMarkdown());
    }
    if (r.session != null) {
      md.append(new ReportSession(r).markdown());
    }
    if (r.spread != null) {
      h2("Spread: 1,000 elections over 5 instance JVMs (PROTOCOL.md §11.7)");
      md.append(r.spread).append('\n');
    }
    if (contenders) {
      md.append(new ReportAnalysis(r, stem, missed).markdown());
    }
    if (!r.problems.isEmpty()) {
      h2("Problems during the run");
      for (String s : r.problems) {
        md.append("- ").append(s).append('\n');
      }
      md.append('\n');
    }
    Path out = dir.resolve(stem + ".md");
    Files.writeString(out, md.toString(), StandardCharsets.UTF_8);
    return out;
  }

  private void h1(String s) {
    md.append("# ").append(s).append("\n\n");
  }
}
