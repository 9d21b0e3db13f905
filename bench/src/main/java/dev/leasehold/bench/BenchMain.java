package dev.leasehold.bench;

import dev.leasehold.bench.contender.JdbcKind;
import dev.leasehold.bench.contender.Kind;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * BenchMain is the bench's command line: it runs every scenario against a 3-member etcd
 * cluster it starts itself and writes {@code <out>/<name>.md}, its plots and a CSV of every
 * sample; the {@code mariadb-*} phases run against a private mariadbd and write their own
 * report ({@code <name>-mariadb.md} beside an etcd one), the {@code postgres-*} phases against a private postgres
 * and PgBouncer ({@code <name>-postgres.md} beside another). Not thread-safe; run it as a program.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Leasehold vs jetcd Election vs the seed's polling design: failover, safety and etcd cost.")
public final class BenchMain implements Callable<Path> {
  @Option(names = "--contenders", split = ",", description = "which contenders (default: ${DEFAULT-VALUE})",
      defaultValue = "LEASEHOLD,JETCD,POLLING")
  List<Kind> contenders;

  @Option(names = "--variants", split = ",", defaultValue = "LEASEHOLD_NO_STANDBY",
      description = "extra variants measured in the handover and idle scenarios only (NONE for none)")
  List<String> variants;

  @Option(names = "--handover-trials", defaultValue = "50", description = "recorded graceful handovers per contender")
  int handoverTrials;

  @Option(names = "--handover-warmup", defaultValue = "5", description = "unrecorded handovers first")
  int handoverWarmup;

  @Option(names = "--handover-trace", defaultValue = "true", negatable = true, fallbackValue = "true",
      description = "run Leasehold's handover candidates with -Dleasehold.trace=true and report each hop (default: ${DEFAULT-VALUE})")
  boolean handoverTrace;

  @Option(names = "--handover-ttl", defaultValue = "2", description = "lease TTL (s) for handover, floor and scale")
  int handoverTtl;

  @Option(names = "--crash-trials", defaultValue = "20", description = "SIGKILLs per contender and TTL")
  int crashTrials;

  @Option(names = "--crash-ttls", split = ",", defaultValue = "2,5", description = "lease TTLs (s) for crash failover")
  List<Integer> crashTtls;

  @Option(names = "--partition-trials", defaultValue = "50", description = "partitions of the leader per contender")
  int partitionTrials;

  @Option(names = "--partition-ttl", defaultValue = "2", description = "lease TTL (s) for the partition scenario")
  int partitionTtl;

  @Option(names = "--idle-counts", split = ",", defaultValue = "1,3,10,100", description = "candidate counts for idle cost")
  List<Integer> idleCounts;

  @Option(names = "--idle-ttl", defaultValue = "5", description = "lease TTL (s) for idle cost (Leasehold's default)")
  int idleTtl;

  @Option(names = "--idle-window", defaultValue = "10", description = "seconds between the two metric reads")
  int idleWindow;

  @Option(names = "--idle-settle", defaultValue = "4",
      description = "seconds from the first election to the first metric read")
  int idleSettle;

  @Option(names = "--group-settle-ms", defaultValue = "1500",
      description = "pause after a group's first election before its first trial")
  int groupSettleMs;

  @Option(names = "--crash-warmup", defaultValue = "2", description = "unrecorded handovers before the first kill")
  int crashWarmup;

  @Option(names = "--candidates", defaultValue = "3",
      description = "candidate JVMs per contender in handover, crash and partition")
  int candidates;

  @Option(names = "--child-jvm-opts", split = " ", defaultValue = "-Xmx256m -XX:+UseSerialGC",
      description = "JVM options of every candidate JVM (space-separated)")
  List<String> childJvmOpts;

  @Option(names = "--parallel", description = "run the contenders of a scenario at the same time "
      + "(for the smoke test: quicker, but they then disturb each other's figures)")
  boolean parallel;

  @Option(names = "--scale-count", defaultValue = "1000", description = "Leasehold electors sharing one client")
  int scaleCount;

  @Option(names = "--scale-ttl", defaultValue = "5", description = "lease TTL (s) at scale (Leasehold's default)")
  int scaleTtl;

  // Off by default: 1,000 jetcd clients in one JVM (each with its own event loops) drove a
  // 2-core machine to a load of 131 and the row timed out in two full runs, spoiling the rows
  // measured beside it.
  @Option(names = "--scale-own-clients", defaultValue = "0",
      description = "Leasehold electors with one client each (0, the default, skips)")
  int scaleOwnClients;

  @Option(names = "--scale-handovers", defaultValue = "10", description = "handovers at scale, per client mode")
  int scaleHandovers;

  @Option(names = "--scale-pace-us", defaultValue = "0", description = "start the scale phase's candidates "
      + "(Leasehold's and jetcd Election's alike) one every this many microseconds; 0: each as soon as the one "
      + "before it has started")
  int scalePaceMicros;

  @Option(names = "--scale-cold-rounds", defaultValue = "5", description = "with jetcd Election among the "
      + "contenders, repeat the scale phase's two cold starts (Leasehold's shared client with standby leases, "
      + "then Election's) this many times, one after the other, and judge the first leader on the medians "
      + "(default: ${DEFAULT-VALUE})")
  int scaleColdRounds;

  @Option(names = "--session-counts", split = ",", defaultValue = "1,100,1000,10000",
      description = "session phase: elections on one EtcdSession at which heap and threads are read; "
          + "idle cost and handover at the smallest and the largest (default: ${DEFAULT-VALUE})")
  List<Integer> sessionCounts;

  @Option(names = "--session-ttl", defaultValue = "5", description = "session phase: lease TTL (s)")
  int sessionTtl;

  @Option(names = "--session-trials", defaultValue = "50",
      description = "session phase: recorded handovers of one election between two sessions, per count")
  int sessionTrials;

  @Option(names = "--session-warmup", defaultValue = "5", description = "session phase: unrecorded handovers first")
  int sessionWarmup;

  @Option(names = "--session-window", defaultValue = "20",
      description = "session phase: seconds between the two metric reads of each idle figure")
  int sessionWindow;

  @Option(names = "--session-batch", defaultValue = "0",
      description = "session phase: elections added to a started session at a time, each batch elected "
          + "before the next (0: all at once, before the session starts)")
  int sessionBatch;

  @Option(names = "--session-jvm-opts", split = " ", defaultValue = "-Xmx2g -XX:+UseSerialGC -Xss256k",
      description = "session phase: options of its forked JVM (space-separated)")
  List<String> sessionJvmOpts;

  @Option(names = "--floor-samples", defaultValue = "200", description = "samples per raw round-trip figure")
  int floorSamples;

  @Option(names = "--path-samples", defaultValue = "50", description = "samples per bare handover path")
  int pathSamples;

  @Option(names = "--phases", split = ",", defaultValue = "floor,idle,handover,crash,partition,scale",
      description = "which scenarios to run (default: the etcd ones but session); session (many elections "
          + "on one EtcdSession, about 7 min at 10,000 elections on 2 cores) and spread (1,000 elections spread "
          + "over 5 instance JVMs: a cold start, a SIGKILL, a join; about 1 min) run only when named; the MariaDB "
          + "ones are mariadb-idle, mariadb-handover, mariadb-crash, mariadb-partition, or mariadb for all four; "
          + "the PostgreSQL ones postgres-floor, postgres-idle, postgres-handover, postgres-crash, "
          + "postgres-partition, or postgres for all five")
  List<String> phases;

  @Option(names = "--mariadb-contenders", split = ",", defaultValue = "LEASEHOLD_JDBC,GET_LOCK",
      description = "which MariaDB contenders (default: ${DEFAULT-VALUE})")
  List<JdbcKind> mariadbContenders;

  @Option(names = "--mariadb-ttl-ms", defaultValue = "2000",
      description = "TTL (ms) for the MariaDB handover, partition and idle phases")
  int mariadbTtlMillis;

  @Option(names = "--mariadb-crash-ttls-ms", split = ",", defaultValue = "1500,5000",
      description = "TTLs (ms) for MariaDB crash failover")
  List<Integer> mariadbCrashTtls;

  @Option(names = "--mariadb-partition-trials", defaultValue = "30", description = "MariaDB partitions per contender")
  int mariadbPartitionTrials;

  @Option(names = "--mariadb-idle-counts", split = ",", defaultValue = "1,10,100",
      description = "candidate counts for the MariaDB idle load")
  List<Integer> mariadbIdleCounts;

  @Option(names = "--postgres-contenders", split = ",", defaultValue = "LEASEHOLD_JDBC,SHEDLOCK,PG_ADVISORY_LOCK",
      description = "which PostgreSQL contenders (default: ${DEFAULT-VALUE})")
  List<JdbcKind> postgresContenders;

  @Option(names = "--postgres-ttl-ms", defaultValue = "2000",
      description = "TTL (ms) for the PostgreSQL handover and the floor's lease row")
  int postgresTtlMillis;

  @Option(names = "--postgres-crash-ttls-ms", split = ",", defaultValue = "1500,5000",
      description = "TTLs (ms) for PostgreSQL crash failover")
  List<Integer> postgresCrashTtls;

  @Option(names = "--postgres-partition-trials", defaultValue = "30",
      description = "PostgreSQL partitions per contender")
  int postgresPartitionTrials;

  @Option(names = "--postgres-idle-counts", split = ",", defaultValue = "1,10,100",
      description = "PostgreSQL idle-cost candidate counts")
  List<Integer> postgresIdleCounts;

  @Option(names = "--postgres-floor-samples", defaultValue = "300",
      description = "samples per PostgreSQL floor figure")
  int postgresFloorSamples;

  @Option(names = "--postgres-floor-warmup", defaultValue = "20",
      description = "unrecorded rounds before each PostgreSQL floor figure")
  int postgresFloorWarmup;

  @Option(names = "--out", defaultValue = "bench/results", description = "directory for the report and plots")
  Path out;

  @Option(names = "--name", description = "report file name without .md (default: today's date)")
  String name;

  @Spec
  CommandSpec spec;

  private String commandLine = "";

  /** main runs the bench and exits 0 when the report was written. */
  public static void main(String[] args) {
    System.exit(new CommandLine(new BenchMain().withCommandLine(args)).execute(args));
  }

  /** run parses {@code args}, runs the bench and returns the report's path; for tests. */
  public static Path run(String... args) throws Exception {
    BenchMain m = new BenchMain().withCommandLine(args);
    new CommandLine(m).parseArgs(args);
    return m.call();
  }

  /** requireServer refuses, naming the option, contenders that cannot run on that option's server. */
  private void requireServer(String option, List<JdbcKind> kinds, JdbcKind.Server server) {
    List<JdbcKind> wrong = kinds.stream().filter(k -> !k.runsOn(server)).toList();
    if (!wrong.isEmpty()) {
      List<JdbcKind> fit = Arrays.stream(JdbcKind.values()).filter(k -> k.runsOn(server)).toList();
      throw new ParameterException(spec.commandLine(), option + " takes contenders that run on " + server + " "
          + fit + ", but was " + wrong);
    }
  }

  private BenchMain withCommandLine(String[] args) {
    this.commandLine = String.join(" ", args);
    return this;
  }

  @Override
  public Path call() throws Exception {
    System.setProperty("java.awt.headless", "true");
    long t0 = System.nanoTime();
    Results r = new Results();
    r.startedAtMillis = System.currentTimeMillis();
    r.command = commandLine;
    String etcdBin = System.getenv("ETCD_BIN") != null ? System.getenv("ETCD_BIN") : "etcd";
    r.machine = MachineInfo.detect(etcdBin);
    Path logDir = Path.of("target", "bench-logs").toAbsolutePath();
    List<Kind> extra = variants.stream().filter(v -> !v.equalsIgnoreCase("NONE")).map(Kind::valueOf).toList();
    r.options = new Bench.Options(contenders, extra, handoverTrials, handoverWarmup, handoverTtl, crashTrials,
        crashTtls, partitionTrials, partitionTtl, idleCounts, idleTtl, idleWindow,
        idleSettle, groupSettleMs, crashWarmup, candidates, childJvmOpts, parallel, scaleCount, scaleTtl,
        scaleOwnClients, scaleHandovers, scalePaceMicros, scaleColdRounds, floorSamples, pathSamples, phases, logDir, handoverTrace,
        new SessionPhase.Options(sessionCounts, sessionTtl, sessionTrials, sessionWarmup, sessionWindow,
            sessionBatch <= 0 ? Integer.MAX_VALUE : sessionBatch, sessionJvmOpts));
    r.loadBefore = MachineInfo.loadAverage();
    requireServer("--mariadb-contenders", mariadbContenders, JdbcKind.Server.MARIADB);
    requireServer("--postgres-contenders", postgresContenders, JdbcKind.Server.POSTGRES);
    boolean etcdPhases = phases.stream().anyMatch(p -> !p.startsWith("mariadb") && !p.startsWith("postgres"));
    if (etcdPhases) {
      new Bench(r.options, r).run();
    }
    MariaDbResults maria = null;
    if (MariaDbBench.wanted(phases)) {
      maria = new MariaDbResults();
      maria.options = new MariaDbResults.Options(mariadbContenders, mariadbTtlMillis, mariadbCrashTtls,
          mariadbTtlMillis, mariadbPartitionTrials, mariadbTtlMillis, mariadbIdleCounts);
      new MariaDbBench(r.options, maria).run();
    }
    PostgresResults postgres = null;
    if (PostgresBench.wanted(phases)) {
      postgres = new PostgresResults();
      postgres.options = new PostgresResults.Options(postgresContenders, postgresTtlMillis, postgresCrashTtls,
          postgresFloorSamples, postgresFloorWarmup, postgresTtlMillis, postgresPartitionTrials, postgresTtlMillis,
          postgresIdleCounts);
      new PostgresBench(r.options, postgres).run();
    }
    r.loadAfter = MachineInfo.loadAverage();
    r.wallSeconds = (System.nanoTime() - t0) / 1e9;
    String stem = name != null ? name : LocalDate.now().toString();
    Path report = null;
    if (etcdPhases) {
      report = new Report(r, out, stem).write();
    }
    if (maria != null) {
      // Beside an etcd report the MariaDB one takes a suffix; alone, it takes the name.
      Path m = new MariaDbReport(r, maria, out, etcdPhases ? stem + "-mariadb" : stem).write();
      report = report == null ? m : report;
    }
    if (postgres != null) {
      // Beside another report the PostgreSQL one takes a suffix; alone, it takes the name.
      boolean beside = etcdPhases || maria != null;
      Path pg = new PostgresReport(r, postgres, out, beside ? stem + "-postgres" : stem).write();
      report = report == null ? pg : report;
    }
    Bench.say("report: " + report.toAbsolutePath() + String.format(" (%.1f min)", r.wallSeconds / 60));
    return report;
  }
}
