package dev.leasehold.bench;

import dev.leasehold.bench.contender.JdbcKind;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * PostgresResults holds what the PostgreSQL phases measured; {@link PostgresReport} is made from it alone.
 *
 * <p>The maps are synchronized (a phase may fill them from several threads with {@code --parallel}); the report
 * reads them after every phase has finished.
 */
final class PostgresResults {
  /** Options are the PostgreSQL phases' own knobs; the shared ones come from {@link Bench.Options}. */
  record Options(List<JdbcKind> contenders, int handoverTtlMillis, List<Integer> crashTtlsMillis, int floorSamples,
      int floorWarmup, int partitionTtlMillis, int partitionTrials, int idleTtlMillis, List<Integer> idleCounts) {}

  /**
   * Idle is one idle window at the server, from {@code pg_stat_database} deltas of the bench's database: every
   * autocommit statement is one transaction, so transactions per second are statements per second.
   *
   * @param transactionsPerSec committed and rolled-back transactions per second
   * @param connections the database's sessions at the end of the window
   */
  record Idle(double transactionsPerSec, int connections) {}

  Options options;
  String serverVersion = "unknown";
  String serverSettings = "";
  String bouncerVersion = "unknown";
  String driverVersion = "unknown";
  /** loadBeforeFloor and loadAfterFloor are the load average around the floor, whose figures it moves most. */
  String loadBeforeFloor = "";
  String loadAfterFloor = "";
  final Map<String, List<Double>> floor = Collections.synchronizedMap(new LinkedHashMap<>());
  final Map<JdbcKind, List<Double>> handover = Collections.synchronizedMap(new EnumMap<>(JdbcKind.class));
  /** handoverHops is Leasehold-JDBC's traced handovers, statement by statement; null when not traced. */
  volatile HandoverHops handoverHops;
  final Map<Integer, Map<JdbcKind, List<Double>>> crash = Collections.synchronizedMap(new TreeMap<>());
  Idle idleBaseline;
  final Map<JdbcKind, List<Results.PartitionTrial>> partition =
      Collections.synchronizedMap(new EnumMap<>(JdbcKind.class));
  final Map<JdbcKind, Map<Integer, Idle>> idle = Collections.synchronizedMap(new EnumMap<>(JdbcKind.class));
  /** problems lists trials or phases that failed, so the report can say so. */
  final List<String> problems = Collections.synchronizedList(new ArrayList<>());
}
