package dev.leasehold.bench;

import dev.leasehold.bench.HopTrace.Hop;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * HandoverHops turns the handover trace of one trial (the marks the resigner's and the
 * successor's JVMs recorded, see {@code HopTrace}) into times from t0, and renders the
 * per-hop table of the report, next to the bare path's hops ({@link Floor}).
 *
 * <p>Not thread-safe: the bench fills it from its scenario thread.
 */
final class HandoverHops {
  /** The resigner's hops on etcd, taken from its JVM. */
  static final List<Hop> RESIGNER = List.of(Hop.RESIGN_CALLED, Hop.RESIGN_ON_LOOP, Hop.REVOKE_SENT, Hop.REVOKE_ACKED,
      Hop.HANDOVER_SENT, Hop.HANDOVER_ACKED, Hop.HANDOVER_ON_LOOP);

  /** The successor's hops on etcd, taken from the JVM that was elected. */
  static final List<Hop> SUCCESSOR = List.of(Hop.WATCH_PUT, Hop.WATCH_PUT_ON_LOOP, Hop.WATCH_DELETE,
      Hop.WATCH_DELETE_ON_LOOP, Hop.POLL_ON_LOOP,
      Hop.GRANT_SENT, Hop.GRANT_ON_LOOP, Hop.CAS_SENT, Hop.CAS_ACKED, Hop.CAS_ON_LOOP, Hop.ELECTED_PUBLISHED,
      Hop.ELECTED_LISTENER);

  /** The bare path's hop that matches a traced one on etcd (Floor's standby path), or absent. */
  static final Map<Hop, String> BARE = Map.of(
      Hop.REVOKE_ACKED, Floor.HOP_REVOKE_ACKED,
      Hop.WATCH_DELETE, Floor.HOP_WATCH,
      Hop.CAS_SENT, Floor.HOP_TXN_SENT,
      Hop.CAS_ACKED, Floor.HOP_TXN_ACKED);

  /**
   * SQL_RESIGNER are the resigner's hops on the SQL backend: REVOKE_SENT and REVOKE_ACKED are its
   * release UPDATE's send and answer (the row freed and committed), which also frees its lock.
   */
  static final List<Hop> SQL_RESIGNER = List.of(Hop.RESIGN_CALLED, Hop.RESIGN_ON_LOOP, Hop.REVOKE_SENT,
      Hop.REVOKE_ACKED, Hop.RELEASE_ON_LOOP);

  /** SQL_SUCCESSOR are the successor's hops on the SQL backend: woken, then its take. */
  static final List<Hop> SQL_SUCCESSOR = List.of(Hop.WAKE_ACKED, Hop.WAKE_ON_LOOP, Hop.POLL_ON_LOOP, Hop.TAKE_SENT,
      Hop.TAKE_ACKED, Hop.TAKE_ON_LOOP, Hop.ELECTED_PUBLISHED, Hop.ELECTED_LISTENER);

  private final List<Hop> resigner;
  private final List<Hop> successor;
  private final Map<Hop, String> bare;

  /** HandoverHops is an etcd handover's trace, beside Floor's bare path. */
  HandoverHops() {
    this(RESIGNER, SUCCESSOR, BARE);
  }

  private HandoverHops(List<Hop> resigner, List<Hop> successor, Map<Hop, String> bare) {
    this.resigner = resigner;
    this.successor = successor;
    this.bare = bare;
  }

  /** sql is a SQL handover's trace; the floor is reported beside the table, not per hop. */
  static HandoverHops sql() {
    return new HandoverHops(SQL_RESIGNER, SQL_SUCCESSOR, Map.of());
  }

  private final List<Map<Hop, Double>> trials = new ArrayList<>();

  /** Mark is one trace line of one child: its hop and System.nanoTime(). */
  record Mark(Hop hop, long nanos) {}

  /**
   * add records one trial: t0 (the resign line's time), the election's time as the bench saw it,
   * and the marks of the resigner and of the successor. The first mark of each hop at or after t0
   * counts; the successor's must also come no later than its elected callback. Returns the trial's
   * hops (ms from t0), for the log.
   */
  Map<Hop, Double> add(long t0, long electedNanos, List<Mark> resignerMarks, List<Mark> successorMarks) {
    Map<Hop, Double> t = new EnumMap<>(Hop.class);
    first(t, t0, Long.MAX_VALUE, resignerMarks, resigner);
    first(t, t0, electedNanos, successorMarks, successor);
    trials.add(t);
    return t;
  }

  int size() {
    return trials.size();
  }

  private static void first(Map<Hop, Double> t, long t0, long until, List<Mark> marks, List<Hop> hops) {
    for (Mark m : marks) {
      if (hops.contains(m.hop()) && m.nanos() >= t0 && m.nanos() <= until && !t.containsKey(m.hop())) {
        t.put(m.hop(), (m.nanos() - t0) / 1e6);
      }
    }
  }

  /**
   * rows is the per-hop table: the hop, in how many trials it was seen, p50 and p99 of its time
   * from t0, p50 and p99 of its step (its time minus the previous hop's seen in the same trial),
   * and the bare path's p50 and p99 from t0 at the matching hop.
   */
  List<List<String>> rows(Map<String, List<Double>> bareSamples) {
    List<List<String>> rows = new ArrayList<>();
    List<Hop> order = new ArrayList<>(resigner);
    order.addAll(successor);
    for (Hop h : order) {
      List<Double> at = new ArrayList<>();
      List<Double> step = new ArrayList<>();
      for (Map<Hop, Double> t : trials) {
        Double v = t.get(h);
        if (v == null) {
          continue;
        }
        at.add(v);
        Double prev = previous(t, order, h);
        if (prev != null) {
          step.add(v - prev);
        }
      }
      if (at.isEmpty()) {
        continue;
      }
      Stats a = Stats.of(at);
      Stats s = Stats.of(step);
      String b = bare.get(h);
      Stats bs = b == null || bareSamples.get(b) == null ? null : Stats.of(bareSamples.get(b));
      rows.add(List.of(h.name(), Integer.toString(a.n()), ms(a.p50()), ms(a.p99()),
          step.isEmpty() ? "–" : ms(s.p50()), step.isEmpty() ? "–" : ms(s.p99()),
          bs == null ? "–" : ms(bs.p50()) + " / " + ms(bs.p99())));
    }
    return rows;
  }

  /**
   * drain asks every child for its handover-trace marks (each JVM drains what it recorded since
   * the last ask) and returns those of {@code wanted}, in that order.
   */
  static List<List<Mark>> drain(Group g, List<Group.Child> wanted) throws Exception {
    int mark = g.mark();
    for (Group.Child c : g.children()) {
      c.sendQuietly("trace");
    }
    for (Group.Child c : g.children()) {
      if (c.isAlive()) {
        g.await(mark, e -> e.is("TRACE_END") && e.child() == c, BenchPhase.WAIT);
      }
    }
    List<List<Mark>> out = new ArrayList<>();
    for (Group.Child c : wanted) {
      List<Mark> l = new ArrayList<>();
      for (int i = mark; ; i++) {
        Optional<Group.Ev> e = g.find(i, x -> x.child() == c && (x.is("TRACE") || x.is("TRACE_END")),
            Duration.ZERO);
        if (e.isEmpty() || e.get().is("TRACE_END")) {
          break;
        }
        l.add(new Mark(Hop.valueOf(e.get().detail()), e.get().nanos()));
        i = e.get().seq();
      }
      out.add(l);
    }
    return out;
  }

  private static Double previous(Map<Hop, Double> t, List<Hop> order, Hop h) {
    for (int i = order.indexOf(h) - 1; i >= 0; i--) {
      Double v = t.get(order.get(i));
      if (v != null) {
        return v;
      }
    }
    return null;
  }

  private static String ms(double v) {
    return String.format(Locale.ROOT, "%.2f", v);
  }
}
