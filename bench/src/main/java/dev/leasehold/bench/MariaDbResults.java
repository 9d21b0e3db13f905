package dev.leasehold.bench;

import dev.leasehold.bench.contender.JdbcKind;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * MariaDbResults holds what the MariaDB phases measured; {@link MariaDbReport} is made from it
 * alone.
 *
 * <p>The maps are synchronized (a phase may fill them from several threads with
 * {@code --parallel}); the report reads them after every phase has finished.
 */
final class MariaDbResults {
  /** Idle is one idle window: statements per second at the server, from SHOW GLOBAL STATUS deltas. */
  record Idle(double questionsPerSec, double queriesPerSec, double selectsPerSec, double updatesPerSec,
      int connections) {}

  /** Options are the MariaDB phases' own knobs; the shared ones come from {@link Bench.Options}. */
  record Options(List<JdbcKind> contenders, int handoverTtlMillis, List<Integer> crashTtlsMillis,
      int partitionTtlMillis, int partitionTrials, int idleTtlMillis, List<Integer> idleCounts) {}

  Options options;
  String serverVersion = "unknown";
  String serverFlags = "";
  Idle idleBaseline;
  final Map<JdbcKind, List<Double>> handover = Collections.synchronizedMap(new EnumMap<>(JdbcKind.class));
  final Map<Integer, Map<JdbcKind, List<Double>>> crash = Collections.synchronizedMap(new TreeMap<>());
  final Map<JdbcKind, List<Results.PartitionTrial>> partition =
      Collections.synchronizedMap(new EnumMap<>(JdbcKind.class));
  final Map<JdbcKind, Map<Integer, Idle>> idle = Collections.synchronizedMap(new EnumMap<>(JdbcKind.class));
  /** problems lists trials or phases that failed, so the report can say so. */
  final List<String> problems = Collections.synchronizedList(new ArrayList<>());
}
