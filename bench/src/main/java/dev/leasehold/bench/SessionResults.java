package dev.leasehold.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * SessionResults holds what {@link SessionPhase} measured: etcd's baseline, the footprint run's
 * {@code RESULT} values, etcd's idle rates per state, and the handover runs' values per
 * election count. Written by the phase's thread, read by the report after the run.
 */
final class SessionResults {
  /** baseline is etcd's traffic with no client of the bench connected. */
  EtcdMetrics.Rates baseline;
  /** footprint is the footprint JVM's values: heap_bytes_N, threads_N, rss_bytes_N, grow_to_N_ms, ... */
  final Map<String, String> footprint = Collections.synchronizedMap(new LinkedHashMap<>());
  /** idle is etcd's idle rates by state, e.g. "10000 elections, 1 session". */
  final Map<String, EtcdMetrics.Rates> idle = Collections.synchronizedMap(new LinkedHashMap<>());
  /** handover is each handover JVM's values, by elections per session. */
  final Map<Integer, Map<String, String>> handover = Collections.synchronizedMap(new TreeMap<>());
  final List<String> failures = Collections.synchronizedList(new ArrayList<>());

  double footprint(String name) {
    return number(footprint.get(name));
  }

  double handover(int n, String name) {
    return number(handover.getOrDefault(n, Map.of()).get(name));
  }

  /** handovers is the recorded resign → other session's ELECTED times (ms) at {@code n} elections. */
  List<Double> handovers(int n) {
    List<Double> l = new ArrayList<>();
    String v = handover.getOrDefault(n, Map.of()).get("handover_ms");
    if (v != null && !v.isBlank()) {
      for (String s : v.split(",")) {
        l.add(Double.parseDouble(s));
      }
    }
    return l;
  }

  private static double number(String v) {
    return v == null || v.isBlank() ? Double.NaN : Double.parseDouble(v);
  }
}
