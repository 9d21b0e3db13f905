package dev.leasehold.bench;

import dev.leasehold.bench.contender.Kind;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Results holds everything one run measured; the report and the plots are made from it alone.
 *
 * <p>The per-contender maps are synchronized: with {@code --parallel} contenders fill them from
 * several threads; the report reads them after every scenario has finished.
 */
final class Results {
  /** PartitionTrial is one partition of the leader: times from the partition, in ms. */
  record PartitionTrial(double newLeaderMs, double stepDownMs, boolean steppedDown, double capMs) {
    /** window is step-down minus new leader's election: positive means two leaders at once. */
    double windowMs() {
      return stepDownMs - newLeaderMs;
    }
  }

  /** ScaleRun is one scale run of Leasehold electors in one JVM. */
  record ScaleRun(String mode, int count, Map<String, String> values, EtcdMetrics.Rates idle,
      EtcdMetrics.Rates idleLater, double proposalsPerHandover, String failure) {
    double value(String name) {
      return number(values.get(name));
    }

    /** number reads a figure as the scale JVMs print it; absent or blank is NaN. */
    static double number(String v) {
      return v == null || v.isBlank() ? Double.NaN : Double.parseDouble(v);
    }

    List<Double> handovers() {
      List<Double> l = new ArrayList<>();
      String v = values.get("handover_ms");
      if (v != null && !v.isBlank()) {
        for (String s : v.split(",")) {
          l.add(Double.parseDouble(s));
        }
      }
      return l;
    }
  }

  /** scaleRun is the scale run of {@code mode} at {@code count} that did not fail, if there is one. */
  Optional<ScaleRun> scaleRun(String mode, int count) {
    return scale.stream().filter(s -> s.mode().equals(mode) && s.count() == count && s.failure() == null).findFirst();
  }

  MachineInfo machine;
  /** loadBefore and loadAfter are /proc/loadavg at the start and the end of the run. */
  String loadBefore = "unknown";
  String loadAfter = "unknown";
  /** etcdSlowApplies counts etcd's "apply request took too long" (over 100 ms) warnings, all members. */
  long etcdSlowApplies = -1;
  /** etcdSlowFsyncs counts etcd's "slow fdatasync" (over 1 s) warnings, all members. */
  long etcdSlowFsyncs = -1;
  String command;
  long startedAtMillis;
  double wallSeconds;
  Bench.Options options;

  final Map<String, List<Double>> floor = new LinkedHashMap<>();
  /** floorHops is the bare standby path's time from t0 at each hop ({@link Floor#hops()}). */
  final Map<String, List<Double>> floorHops = new LinkedHashMap<>();
  /** handoverHops is the traced handovers' per-hop times, for the Leasehold kinds. */
  final Map<Kind, HandoverHops> handoverHops = Collections.synchronizedMap(new EnumMap<>(Kind.class));
  final Map<Kind, List<Double>> handover = Collections.synchronizedMap(new EnumMap<>(Kind.class));
  final Map<Kind, Double> proposalsPerHandover = Collections.synchronizedMap(new EnumMap<>(Kind.class));
  final Map<Integer, Map<Kind, List<Double>>> crash = new TreeMap<>();
  final Map<Kind, List<PartitionTrial>> partition = Collections.synchronizedMap(new EnumMap<>(Kind.class));
  EtcdMetrics.Rates idleBaseline;
  final Map<Kind, Map<Integer, EtcdMetrics.Rates>> idle = Collections.synchronizedMap(new EnumMap<>(Kind.class));
  /** leasesLeftAfterIdle is how many leases etcd still held right after each idle group closed. */
  final Map<Kind, Map<Integer, Integer>> leasesLeftAfterIdle = Collections.synchronizedMap(new EnumMap<>(Kind.class));
  final List<ScaleRun> scale = new ArrayList<>();

  /**
   * ColdStart is one round of the repeated cold start: the first leader and the {@code start()}
   * calls' time, in ms, of Leasehold's electors and of jetcd Election's candidates; NaN where a
   * run failed.
   */
  record ColdStart(int round, double leaseholdFirstMs, double leaseholdStartCallsMs, double electionFirstMs,
      double electionStartCallsMs) {}

  /** coldStarts is the scale phase's repeated cold starts, in the order they ran. */
  final List<ColdStart> coldStarts = new ArrayList<>();
  /** session is the session phase's figures, or null when it did not run. */
  SessionResults session;
  /** spread is the spread phase's section of the report (Markdown), or null when it did not run. */
  String spread;
  /** problems lists trials or phases that failed, so the report can say so. */
  final List<String> problems = Collections.synchronizedList(new ArrayList<>());
}
