package dev.leasehold.cli;

import dev.leasehold.Durations;
import dev.leasehold.ElectorConfig;
import dev.leasehold.LeaderElector;
import dev.leasehold.etcd.EtcdLeaderElector;
import dev.leasehold.jdbc.JdbcLeaderElector;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * RunCommand is {@code leasehold run}: campaign for the key and run the command only while
 * leading. Its options are validated together before anything connects.
 *
 * <p>Not thread-safe: picocli fills it in, then {@link #call()} runs once.
 */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    header = "Run a command only while this process leads the election key.",
    description = {
        "Campaign for --key and, while leader, run CMD with LEASEHOLD_ELECTION_KEY, "
            + "LEASEHOLD_LEADER_ID, LEASEHOLD_FENCING_TOKEN, LEASEHOLD_LEASE_ID (hex), LEASEHOLD_LEASE_TTL, "
            + "LEASEHOLD_BACKEND and (etcd) LEASEHOLD_ENDPOINTS in its environment.",
        "",
        "When the term ends, or --grace before the local deadline while renewals are not confirmed "
            + "(store frozen or cut off), the child's process group gets SIGTERM and, if still there 200 ms "
            + "before the deadline (or --grace after a loss), SIGKILL: the child is gone before the "
            + "deadline, which is itself a safety margin before the store can let another leader in. A term "
            + "won with less time left than a healthy leader has starts the child after its first renewal. When "
            + "the child exits, leasehold resigns (another candidate takes over in milliseconds) and exits "
            + "with the child's code, or campaigns again with --rejoin. SIGTERM, SIGINT and SIGHUP are "
            + "forwarded to the child's process group; with no child running, leasehold releases what it "
            + "holds and exits with 128 + the signal's number.",
        "",
        "The child's whole process tree dies with leasehold, even if leasehold is SIGKILLed: the "
            + "child runs in a PID namespace of its own (util-linux `unshare --pid --fork --kill-child`, "
            + "inside a user namespace that maps only your uid when you are not root) whose init dies with "
            + "leasehold, and the kernel kills every process of a namespace whose init dies, including "
            + "those that left the child's process group (setsid, daemons). Inside it, pids are the "
            + "namespace's ($$$$ is 2): pid files the child writes and pids it signals are its own tree's, "
            + "not the host's. Where no PID namespace can be made, leasehold says so in one line at start, "
            + "and only the child's own process dies with it (parent-death signal), not the processes it "
            + "started; --require-tree-kill then refuses to run (exit 78, a configuration error). "
            + "--no-pid-namespace leaves the namespace out, with that weaker guarantee, for a job that must "
            + "signal processes outside its own tree."},
    parameterListHeading = "%nArguments:%n",
    optionListHeading = "%nOptions:%n",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        "N:the child's exit code, when it exited by itself (128+S if it died of signal S)",
        "0:also: --skip-if-led, and another instance leads",
        "2:bad arguments (the message names the option)",
        "78:configuration error: the store refused leasehold before it led (credentials, permissions, a missing"
            + " table), or --require-tree-kill (before campaigning) where no PID namespace can be made",
        "123:not leader within --timeout, and the store was unreachable then",
        "124:not leader within --timeout, or leader with a deadline too close to start the child and no renewal in"
            + " time",
        "125:leadership lost while the child ran; the child was stopped",
        "126:the command is not executable (checked before campaigning), or its start failed",
        "127:the command was not found (checked before campaigning, on PATH as the shell searches it)",
        "128+S:signal S arrived while no child ran"},
    footerHeading = "%nExamples:%n",
    footer = {
        "  leasehold run --endpoints http://10.0.0.1:2379,http://10.0.0.2:2379 \\",
        "      --key /jobs/dispatch --ttl 5s --rejoin -- /usr/local/bin/dispatch",
        "  leasehold run --endpoints http://10.0.0.1:2379 --key /cron/report \\",
        "      --skip-if-led --hold-at-least 60s --timeout 30s -- /opt/jobs/report.sh"})
final class RunCommand implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger("leasehold");

  /** KILL_RESERVE is how long before the local deadline SIGKILL goes out at the latest. */
  static final Duration KILL_RESERVE = Duration.ofMillis(200);

  @Spec
  CommandSpec spec;

  @Mixin
  StoreOptions store;

  @Option(names = "--key", required = true, paramLabel = "KEY", description = "the election key (etcd key, or the SQL lease row's name)")
  String key;

  @Option(names = "--ttl", paramLabel = "DURATION", defaultValue = "5s", converter = Seconds.class,
      description = "lease TTL, at least 1 s: 5, 5s or PT5S (default: ${DEFAULT-VALUE}; etcd takes whole seconds);"
          + " a crashed leader is replaced after about this long")
  Duration ttl;

  @Option(names = "--id", paramLabel = "ID", description = "candidate id stored as the key's value (default: host-pid-random)")
  String id;

  @Option(names = "--priority", paramLabel = "N",
      description = "this candidate's priority on etcd: when the key is free the highest live priority takes it,"
          + " and a handover goes to the highest queued (default: 0)")
  Integer priority;

  @Option(names = "--preempt-after", paramLabel = "DURATION", converter = Seconds.class,
      description = "on etcd, while leading, hand over to a candidate of a higher priority once it has waited this"
          + " long (default: never)")
  Duration preemptAfter;

  @Option(names = "--timeout", paramLabel = "DURATION", converter = Seconds.class,
      description = "give up (exit 124, or 123 if the store is unreachable) if not leader within this long; each"
          + " campaign under --rejoin has its own (default: wait forever)")
  Duration timeout;

  @Option(names = "--grace", paramLabel = "DURATION", converter = Seconds.class,
      description = "time between SIGTERM and SIGKILL when a term ends (default: TTL/5, at most 2 s, at most what fits);"
          + " must fit in the time a healthy leader always has left, even one that lost a renewal")
  Duration grace;

  @Option(names = "--rejoin", description = "after a term ends, campaign again instead of exiting")
  boolean rejoin;

  @Option(names = "--no-pid-namespace",
      description = "run the child without a PID namespace of its own, for a job that must signal processes"
          + " outside its tree (kill -HUP $$(cat /run/app.pid)); the cost: if leasehold is SIGKILLed, only the"
          + " child's own process dies with it, not the processes it started")
  boolean noPidNamespace;

  @Option(names = "--skip-if-led",
      description = "for jobs a timer starts on several hosts: if another instance leads, or takes the key first,"
          + " exit 0 at once with the line 'skipped: ID leads' instead of waiting for its term to end; the"
          + " library's own INFO lines are left out, so a skipped run prints that one line")
  boolean skipIfLed;

  @Option(names = "--hold-at-least", paramLabel = "DURATION", converter = Seconds.class,
      description = "after the child exits by itself, keep the term until this long after the child started, so"
          + " instances whose timer fires a little later find the key held (with --skip-if-led: and skip); the exit"
          + " code is still the child's")
  Duration holdAtLeast;

  @Option(names = "--require-tree-kill",
      description = "refuse to run (exit 78, before campaigning) where the child's whole process tree cannot be"
          + " made to die with leasehold (no PID namespace: no unshare, or namespaces refused); default: run, say so"
          + " in one line, and kill only the child's own process if leasehold is SIGKILLed")
  boolean requireTreeKill;

  @Parameters(arity = "1..*", paramLabel = "CMD", description = "the command and its arguments, after --")
  List<String> command;

  @Override
  public Integer call() throws Exception {
    store.validate();
    if (skipIfLed
        && LoggerFactory.getLogger("dev.leasehold") instanceof ch.qos.logback.classic.Logger library) {
      // cron mails every line a run prints: a skipped run prints its one line; warnings stay.
      library.setLevel(ch.qos.logback.classic.Level.WARN);
    }
    if (ttl.compareTo(Duration.ofSeconds(1)) < 0) {
      throw usage("--ttl must be >= 1 second, but was " + ttlText());
    }
    Map<String, String> neutral = new LinkedHashMap<>();
    neutral.put("leasehold.key", key);
    neutral.put("leasehold.ttl", Durations.seconds(ttl));
    if (id != null) {
      neutral.put("leasehold.candidate-id", id);
    }
    if (priority != null) {
      neutral.put("leasehold.priority", Integer.toString(priority));
    }
    if (preemptAfter != null) {
      neutral.put("leasehold.preempt-after", Durations.seconds(preemptAfter));
    }
    // Built, not started: it holds no thread and no connection until Supervisor starts it.
    LeaderElector elector = store.elector(neutral);
    ElectorConfig config = elector.config();
    boolean etcd = store.isEtcd();
    Duration g = grace != null ? grace : defaultGrace(config, etcd);
    checkGrace(config, etcd, g);
    if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
      throw usage("--timeout must be > 0 seconds, but was " + Durations.seconds(timeout));
    }
    if (holdAtLeast != null && (holdAtLeast.isNegative() || holdAtLeast.isZero())) {
      throw usage("--hold-at-least must be > 0 seconds, but was " + Durations.seconds(holdAtLeast));
    }
    if (noPidNamespace && requireTreeKill) {
      throw usage("--no-pid-namespace and --require-tree-kill must not both be given: the child's tree dies with"
          + " leasehold only in a PID namespace");
    }
    if (skipIfLed && rejoin) {
      throw usage("--skip-if-led and --rejoin must not both be given: one exits when another instance leads,"
          + " the other campaigns until it leads");
    }
    int found = findCommand(command.get(0), System.getenv("PATH"));
    if (found != 0) {
      // Before campaigning: a typo must not take the key from an instance that could run the job.
      log.error("{}: {}", command.get(0), found == Leasehold.NOT_FOUND ? "command not found" : "not executable");
      return found;
    }
    Guard.Choice choice = Guard.choose(!noPidNamespace);
    if (choice == null) {
      throw usage("run needs util-linux's setsid and setpriv on PATH (Debian package util-linux), but they are missing");
    }
    Guard guard = choice.guard();
    if (guard == null) {
      log.error("cannot start a child on this machine, refusing to run: {}", choice.refused());
      return Leasehold.CANNOT_EXECUTE;
    }
    if (!guard.treeKill() && !noPidNamespace) {
      if (requireTreeKill) {
        log.error("--require-tree-kill: no PID namespace for the child ({}), so its processes could outlive a SIGKILLed"
            + " leasehold: refusing to run", choice.refused());
        return Leasehold.CONFIG;
      }
      log.warn("no PID namespace for the child ({}): if leasehold is SIGKILLed, only the child's own process is"
          + " killed, not the processes it started (--require-tree-kill refuses instead)", choice.refused());
    }
    Supervisor.Settings settings =
        new Supervisor.Settings(command, g, KILL_RESERVE, healthyFloor(config, etcd), timeout, rejoin, guard,
            store.backend(), store.isEtcd() ? String.join(",", store.trimmed()) : null, skipIfLed, holdAtLeast);
    return new Supervisor(elector, settings).run();
  }

  /**
   * findCommand looks for {@code cmd} as the shell does: a name with a slash is taken as it is,
   * any other is searched in {@code path}'s directories (an empty entry is the current one).
   *
   * @return 0 when an executable file is found, {@link Leasehold#NOT_FOUND} when nothing is, and
   *     {@link Leasehold#CANNOT_EXECUTE} when only a directory or a file that is not executable is
   */
  static int findCommand(String cmd, String path) {
    List<Path> candidates = new ArrayList<>();
    if (cmd.contains("/")) {
      candidates.add(Path.of(cmd));
    } else {
      for (String dir : (path == null ? "" : path).split(":", -1)) {
        candidates.add(Path.of(dir.isEmpty() ? "." : dir, cmd));
      }
    }
    int found = Leasehold.NOT_FOUND;
    for (Path p : candidates) {
      if (Files.isRegularFile(p) && Files.isExecutable(p)) {
        return 0;
      }
      if (Files.exists(p)) {
        found = Leasehold.CANNOT_EXECUTE;
      }
    }
    return found;
  }

  /** ttlText is --ttl as given (its default when not). */
  private String ttlText() {
    OptionSpec o = spec.findOption("--ttl");
    List<String> given = o.originalStringValues();
    return given.isEmpty() ? o.defaultValue() : given.get(given.size() - 1);
  }

  /** defaultGrace is TTL/5, at most 2 s, and never more than {@link #maxGrace} allows. */
  static Duration defaultGrace(ElectorConfig c, boolean etcd) {
    Duration fifth = c.leaseTtl().dividedBy(5);
    Duration d = fifth.compareTo(Duration.ofSeconds(2)) > 0 ? Duration.ofSeconds(2) : fifth;
    Duration max = maxGrace(c, etcd);
    return d.compareTo(max) > 0 ? max : d;
  }

  /**
   * healthyFloor is the least time a healthy leader has left before its local deadline, where
   * healthy means one renewal may be late by a call that timed out and its retry's backoff: the
   * deadline window (TTL × (1 − drift) − margin) less one renewal interval, one RPC timeout and
   * the first retry backoff. The interval is the backend's: on etcd as late as leaves 2 s of the
   * window (TTL/6 to TTL/2, PROTOCOL.md §4.4), on SQL TTL/6. SIGTERM goes out when less than
   * grace + kill reserve is left, so that sum must stay below it, or a healthy leader's child
   * would be stopped.
   */
  static Duration healthyFloor(ElectorConfig c, boolean etcd) {
    long window = (long) (c.leaseTtl().toNanos() * (1 - c.maxDriftRate())) - c.safetyMargin().toNanos();
    return Duration.ofNanos(window - renewInterval(c, etcd).toNanos() - c.rpcTimeout().toNanos()
        - c.retryBackoffInitial().toNanos());
  }

  /** renewInterval is how often the backend's MASTER renews at this TTL. */
  static Duration renewInterval(ElectorConfig c, boolean etcd) {
    return etcd ? EtcdLeaderElector.renewInterval(c) : JdbcLeaderElector.renewInterval(c);
  }

  /** maxGrace is the largest --grace that {@link #healthyFloor} leaves after the kill reserve. */
  static Duration maxGrace(ElectorConfig c, boolean etcd) {
    return Duration.ofMillis(healthyFloor(c, etcd).minus(KILL_RESERVE).toMillis());
  }

  private String bound(ElectorConfig c, boolean etcd) {
    return "with --ttl " + ttlText() + ": TTL x " + (1 - c.maxDriftRate()) + " - safety margin "
        + Durations.seconds(c.safetyMargin()) + " - renewal interval " + Durations.seconds(renewInterval(c, etcd))
        + " - RPC timeout " + Durations.seconds(c.rpcTimeout()) + " (a renewal late by a timed-out call) - retry backoff "
        + Durations.seconds(c.retryBackoffInitial()) + " - kill reserve " + Durations.seconds(KILL_RESERVE)
        + "; a healthy leader never has less left, so its child is never stopped needlessly";
  }

  private void checkGrace(ElectorConfig c, boolean etcd, Duration g) {
    Duration max = maxGrace(c, etcd);
    if (max.compareTo(Duration.ofMillis(50)) < 0) {
      throw usage("--ttl must leave room for --grace, but " + ttlText() + " leaves " + Durations.seconds(max)
          + " (" + bound(c, etcd) + "); use --ttl 2 or more");
    }
    if (g.isNegative() || g.isZero()) {
      throw usage("--grace must be > 0 seconds, but was " + Durations.seconds(g));
    }
    if (g.compareTo(max) > 0) {
      throw usage("--grace must be <= " + Durations.seconds(max) + " (" + bound(c, etcd) + "), but was " + Durations.seconds(g)
          + "; lower --grace or raise --ttl");
    }
  }

  private ParameterException usage(String message) {
    return new ParameterException(spec.commandLine(), message);
  }
}
