package dev.leasehold.bench;

import static dev.leasehold.bench.ReportFormat.f0;
import static dev.leasehold.bench.ReportFormat.ms;
import static dev.leasehold.bench.ReportFormat.signed;
import static dev.leasehold.bench.ReportFormat.stats;
import static dev.leasehold.bench.ReportFormat.verdict;

import dev.leasehold.bench.contender.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * ReportSummary writes the first sections of {@link Report}: the machine the run was measured on and
 * the table of targets, judged for Leasehold. Each missed target is added to the list it is given,
 * for {@link ReportAnalysis} to explain.
 *
 * <p>Not thread-safe: one report is written by one thread.
 */
final class ReportSummary extends MarkdownReport {
  private final Results r;
  private final List<String> missed;

  ReportSummary(Results results, List<String> missed) {
    this.r = results;
    this.missed = missed;
  }

  /** markdown writes the Machine and Targets sections and returns them. */
  String markdown() {
    machine();
    targets();
    return md.toString();
  }

  /** machineMarkdown writes the Machine section only (a run without contenders) and returns it. */
  String machineMarkdown() {
    machine();
    return md.toString();
  }

  private void machine() {
    MachineInfo m = r.machine;
    h2("Machine");
    table(List.of("", ""), List.of(
        List.of("CPU", m.cpu() + ", " + m.cores() + " cores (nproc)"),
        List.of("memory", m.memory()),
        List.of("OS", m.os()),
        List.of("JDK", m.jdk()),
        List.of("etcd", m.etcd() + ": 3 members on 127.0.0.1, heartbeat 100 ms, election timeout 1000 ms, "
            + "clients use the first endpoint (member 0)"),
        List.of("jetcd", m.jetcd()),
        List.of("Leasehold", m.leasehold() + " (defaults: poll 1 s, margin TTL/10, drift 0.01)"),
        List.of("load average (1/5/15 min)", "at start " + r.loadBefore + ", at end " + r.loadAfter),
        List.of("etcd stalls", r.etcdSlowApplies < 0 ? "unknown" : r.etcdSlowApplies + " \"apply request took too "
            + "long\" (> 100 ms) and " + r.etcdSlowFsyncs + " \"slow fdatasync\" (> 1 s) warnings in the members' "
            + "logs during the run")));
  }

  private void targets() {
    h2("Targets");
    p("Targets of issue 5, judged for Leasehold. A miss is explained, with the proposed change, under "
        + "[Why targets were missed](#why-targets-were-missed).");
    List<List<String>> rows = new ArrayList<>();
    Stats lh = stats(r.handover.get(Kind.LEASEHOLD));
    Stats je = stats(r.handover.get(Kind.JETCD));
    if (lh != null) {
      boolean ok = lh.p99() <= 15;
      rows.add(List.of("graceful handover p99 ≤ 15 ms", "p99 " + ms(lh.p99()) + " (n=" + lh.n() + ")",
          verdict(ok, ok ? "" : "by " + ms(lh.p99() - 15))));
      if (!ok) {
        missed.add("handover15");
      }
    }
    if (lh != null && je != null) {
      boolean ok = lh.p50() <= je.p50() && lh.p99() <= je.p99();
      rows.add(List.of("handover no slower than jetcd Election",
          "p50 " + ms(lh.p50()) + " vs " + ms(je.p50()) + "; p99 " + ms(lh.p99()) + " vs " + ms(je.p99()),
          verdict(ok, ok ? "" : "p50 by " + ms(Math.max(0, lh.p50() - je.p50())) + ", p99 by "
              + ms(Math.max(0, lh.p99() - je.p99())))));
      if (!ok) {
        missed.add("handoverJetcd");
      }
    }
    for (Map.Entry<Integer, Map<Kind, List<Double>>> e : r.crash.entrySet()) {
      Stats s = stats(e.getValue().get(Kind.LEASEHOLD));
      if (s == null) {
        continue;
      }
      double bound = e.getKey() * 1000 + 600;
      boolean ok = s.p99() <= bound;
      rows.add(List.of("crash failover p99 ≤ TTL + 0.6 s (TTL " + e.getKey() + " s)",
          "p99 " + ms(s.p99()) + " ≤ " + ms(bound) + "? (n=" + s.n() + ")",
          verdict(ok, ok ? "" : "by " + ms(s.p99() - bound))));
      if (!ok) {
        missed.add("crash" + e.getKey());
      }
    }
    Map<Integer, EtcdMetrics.Rates> idle = r.idle.get(Kind.LEASEHOLD);
    if (idle != null && !idle.isEmpty()) {
      boolean ok = idle.values().stream().allMatch(x -> x.proposalCount() == 0);
      String counts = idle.entrySet().stream()
          .map(x -> x.getKey() + ": " + x.getValue().proposalCount() + " in " + f0(x.getValue().seconds()) + " s")
          .collect(Collectors.joining(", "));
      rows.add(List.of("0 raft proposals/s idle, every candidate count", counts, verdict(ok, "")));
      if (!ok) {
        missed.add("idle");
      }
    }
    List<Results.PartitionTrial> pt = r.partition.get(Kind.LEASEHOLD);
    if (pt != null && !pt.isEmpty()) {
      boolean all = pt.stream().allMatch(Results.PartitionTrial::steppedDown);
      double max = pt.stream().mapToDouble(Results.PartitionTrial::windowMs).max().orElse(Double.NaN);
      boolean ok = all && max < 0;
      rows.add(List.of("stale-leader window always negative",
          "max " + signed(max) + " over " + pt.size() + " partitions" + (all ? "" : ", some never stepped down"),
          verdict(ok, ok ? "" : "by " + ms(Math.max(0, max)))));
      if (!ok) {
        missed.add("stale");
      }
    }
    table(List.of("target", "measured (Leasehold)", "met?"), rows);
  }
}
