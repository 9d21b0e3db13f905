package dev.leasehold.bench;

import static dev.leasehold.bench.ReportFormat.f0;
import static dev.leasehold.bench.ReportFormat.f1;
import static dev.leasehold.bench.ReportFormat.f2;
import static dev.leasehold.bench.ReportFormat.ms;
import static dev.leasehold.bench.ReportFormat.topMethods;
import static dev.leasehold.bench.ReportFormat.verdict;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * ReportSession writes the "Many elections on one session" section of {@link Report} from {@link
 * SessionResults}: the four targets judged, then the footprint, idle and handover tables
 * they come from.
 *
 * <p>Not thread-safe: one report is written by one thread.
 */
final class ReportSession extends MarkdownReport {
  private static final String LED = " elections, 1 session";
  private static final String FOLLOWED = " elections, 2 sessions (1 leads, 1 follows)";

  private final SessionResults s;
  private final SessionPhase.Options o;
  private final int small;
  private final int large;

  ReportSession(Results r) {
    this.s = r.session;
    this.o = r.options.session();
    this.small = o.smallest();
    this.large = o.largest();
  }

  String markdown() {
    h2("Many elections on one session");
    p("`EtcdSession`: one etcd lease, one keep-alive, one watch and one event loop for many elections "
        + "(PROTOCOL.md §11), lease TTL " + o.ttlSeconds() + " s, measured in forked JVMs (`" + String.join(" ",
        o.childJvm()) + "`) so that the bench's own objects do not count. Targets of the issue \"10,000 elections in one JVM on "
        + "one session\", measured at up to " + large + " elections.");
    targets();
    footprintTable();
    idleTable();
    handoverTable();
    if (!s.failures.isEmpty()) {
      p("Failures in this phase: " + String.join("; ", s.failures) + ".");
    }
    return md.toString();
  }

  private void targets() {
    List<List<String>> rows = new ArrayList<>();
    // 1. Idle load.
    StringBuilder idle = new StringBuilder();
    boolean idleOk = true;
    boolean idleKnown = false;
    for (String state : List.of(LED, FOLLOWED)) {
      EtcdMetrics.Rates one = s.idle.get(small + state);
      EtcdMetrics.Rates many = s.idle.get(large + state);
      if (one == null || many == null) {
        continue;
      }
      idleKnown = true;
      idleOk &= same(one.proposalsPerSec(), many.proposalsPerSec()) && same(one.messagesPerSec(), many.messagesPerSec());
      idle.append(state.equals(LED) ? "led by 1 session" : "+ a 2nd session following").append(": ")
          .append(f2(one.proposalsPerSec())).append(" → ").append(f2(many.proposalsPerSec())).append(" proposals/s, ")
          .append(f1(one.messagesPerSec())).append(" → ").append(f1(many.messagesPerSec())).append(" messages/s; ");
    }
    rows.add(List.of("etcd idle load from renewals, " + small + " → " + large + " elections",
        idleKnown ? idle.toString().replaceAll("; $", "") : "–",
        "the same as for " + small + " (within 10 % or 0.5/s)",
        idleKnown ? verdict(idleOk, "") : "–"));
    // 2. Heap.
    double perElection = (s.footprint("heap_bytes_" + large) - s.footprint("heap_bytes_0")) / large;
    rows.add(List.of("retained heap per election (" + large + " vs 0, after full GC)",
        Double.isNaN(perElection) ? "–" : String.format(Locale.ROOT, "%.2f KiB", perElection / 1024),
        "≤ 10 KiB", Double.isNaN(perElection) ? "–" : verdict(perElection <= 10 * 1024, "")));
    // 3. Threads.
    List<String> counts = new ArrayList<>();
    boolean constant = true;
    double first = s.footprint("threads_" + small);
    for (int n : o.counts()) {
      double t = s.footprint("threads_" + n);
      counts.add(n + ": " + f0(t));
      constant &= !Double.isNaN(t) && t == first;
    }
    rows.add(List.of("live threads in the JVM at " + o.counts().stream().map(String::valueOf)
            .collect(Collectors.joining(", ")) + " elections",
        String.join(", ", counts) + " (no election: " + f0(s.footprint("threads_0")) + ")", "constant",
        Double.isNaN(first) ? "–" : verdict(constant, "")));
    // 4. Handover.
    Stats one = ReportFormat.stats(s.handovers(small));
    Stats many = ReportFormat.stats(s.handovers(large));
    boolean known = one != null && many != null && one.n() > 0 && many.n() > 0;
    rows.add(List.of("one election's handover (resign → other session's ELECTED), p50 / p99, " + small
            + " → " + large + " elections per session",
        known ? ms(one.p50()) + " / " + ms(one.p99()) + " → " + ms(many.p50()) + " / " + ms(many.p99()) : "–",
        "unaffected (p50 ≤ 1.25 × + 1 ms, p99 ≤ 1.5 × + 5 ms)",
        known ? verdict(many.p50() <= 1.25 * one.p50() + 1 && many.p99() <= 1.5 * one.p99() + 5, "") : "–"));
    double batch = s.handover(large, "batch");
    rows.add(List.of("time to first leader for all " + large + " (start → all elected"
            + (batch < large ? ", in batches of " + f0(batch) : ", all at once") + ")",
        ms(s.handover(large, "all_elected_ms")), "none set", "–"));
    table(List.of("target", "measured", "target", "met?"), rows);
  }

  /** same tells whether {@code many} is within 10 % or 0.5/s of {@code one}. */
  private static boolean same(double one, double many) {
    return Math.abs(many - one) <= Math.max(0.1 * one, 0.5);
  }

  private void footprintTable() {
    p("Footprint: one session (\"a\") started with no election, then grown to each count (" + batchText()
        + "; every election elected before the count is read). Heap: used heap after four `System.gc()` "
        + "(serial GC), per election against no election (the target's figure) and against " + small + " (which "
        + "leaves out what the first election sets up once, and the noise of the no-election reading); threads: live JVM threads; time: from the first new "
        + "election's `start()` to the last one's ELECTED event.");
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("0", mib(s.footprint("heap_bytes_0")), "–", "–", f0(s.footprint("threads_0")),
        mib(s.footprint("rss_bytes_0")), "–"));
    for (int n : o.counts()) {
      double heap = s.footprint("heap_bytes_" + n);
      double per = (heap - s.footprint("heap_bytes_0")) / n;
      double slope = n == small ? Double.NaN : (heap - s.footprint("heap_bytes_" + small)) / (n - small);
      rows.add(List.of(Integer.toString(n), mib(heap),
          Double.isNaN(per) ? "–" : String.format(Locale.ROOT, "%.2f KiB", per / 1024),
          Double.isNaN(slope) ? "–" : String.format(Locale.ROOT, "%.2f KiB", slope / 1024),
          f0(s.footprint("threads_" + n)), mib(s.footprint("rss_bytes_" + n)),
          ms(s.footprint("grow_to_" + n + "_ms")) + " (" + f0(s.footprint("grown_by_" + n)) + " new)"));
    }
    table(List.of("elections", "heap after GC", "heap/election vs 0", "heap/election vs " + small, "threads", "RSS", "time to elect the new ones"),
        rows);
  }

  private void idleTable() {
    p("etcd while idle (" + o.windowSeconds() + " s windows, after a " + "settle pause; counters from every "
        + "member's `/metrics` as in the idle-cost section: proposals/s the highest member's, messages/s and "
        + "RPCs/s summed over members). The follower session is a second `EtcdSession` in the same JVM on the "
        + "same names, started once every election of the first is elected."
        + (s.baseline == null ? "" : String.format(Locale.ROOT,
        " Baseline with no client: %.2f proposals/s, %.2f messages/s.", s.baseline.proposalsPerSec(),
        s.baseline.messagesPerSec())));
    List<List<String>> rows = new ArrayList<>();
    for (Map.Entry<String, EtcdMetrics.Rates> e : s.idle.entrySet()) {
      EtcdMetrics.Rates x = e.getValue();
      rows.add(List.of(e.getKey(), f2(x.proposalsPerSec()), f1(x.messagesPerSec()), f2(x.rpcsPerSec()),
          topMethods(x)));
    }
    table(List.of("state", "proposals/s", "messages/s", "RPCs/s", "busiest methods (msgs/s)"), rows);
  }

  private void handoverTable() {
    p("Handover: sessions \"a\" and \"b\" in one JVM, each with N elections on the same names (" + batchText()
        + "); first leader / all elected: from the first `start()` of a (session or election) to a's first and last "
        + "ELECTED event; then b, all follow: until every election of b names a as leader. Then the election `shard-(N/2)` is resigned " + o.warmup()
        + " + " + o.trials() + " times (the first " + o.warmup() + " unrecorded), a and b alternating as leader "
        + "(resign hold-off 500 ms, so the resigner is back in the race for the next trial); each trial is "
        + "`resign()` until the other session's ELECTED event on that election.");
    List<List<String>> rows = new ArrayList<>();
    for (Map.Entry<Integer, Map<String, String>> e : s.handover.entrySet()) {
      int n = e.getKey();
      Stats h = ReportFormat.stats(s.handovers(n));
      rows.add(List.of(Integer.toString(n), ms(s.handover(n, "first_leader_ms")), ms(s.handover(n, "all_elected_ms")),
          ms(s.handover(n, "all_follow_ms")),
          h == null || h.n() == 0 ? "–" : ms(h.p50()) + " / " + ms(h.p90()) + " / " + ms(h.p99()) + " / "
              + ms(h.max()) + " (n=" + h.n() + ")",
          f0(s.handover(n, "others_still_led_by_a")) + " of " + f0(s.handover(n, "others")),
          f0(s.handover(n, "threads_total"))));
    }
    table(List.of("elections per session", "first leader", "all elected", "all follow",
        "handover p50 / p90 / p99 / max", "other elections still led by a after", "JVM threads"), rows);
  }

  private String batchText() {
    return o.batch() == Integer.MAX_VALUE ? "all new elections started at once"
        : "elections added " + o.batch() + " at a time to the started session, each batch elected or following "
            + "before the next; a count of at most " + o.batch() + " starts at once, before its session";
  }

  private static String mib(double bytes) {
    return Double.isNaN(bytes) ? "–" : String.format(Locale.ROOT, "%.1f MiB", bytes / (1024 * 1024));
  }
}
