package dev.leasehold.it.chaos;

import dev.leasehold.it.LocalServer;
import dev.leasehold.it.chaos.History.TargetKind;
import dev.leasehold.it.postgres.PostgresServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

/**
 * PostgresFaults are the chaos faults of a run on PostgreSQL. With the candidates connected
 * directly ({@link #all()}): postgres killed and restarted, paused, and the MASTER's term session
 * ended with {@code pg_terminate_backend}. Through a transaction-mode PgBouncer
 * ({@link #throughPgBouncer()}): PgBouncer killed and started again on its port, paused, and
 * postgres killed and paused behind it. Each list ends with every candidate fault of
 * {@link Faults#candidateFaults()} (its link blackholed or reset, its JVM killed or paused).
 * Stateless; each fault instance is not thread-safe.
 */
public final class PostgresFaults {
  private PostgresFaults() {}

  /**
   * all returns a fresh instance of every fault of a run whose candidates reach postgres
   * directly, in report order.
   *
   * @return the faults
   */
  public static List<Fault> all() {
    return withCandidateFaults(
        new MariaDbFaults.KillServer("postgres-kill", "postgres", PostgresFaults::server),
        new MariaDbFaults.PauseServer("postgres-pause", "postgres", PostgresFaults::server),
        new TerminateSession());
  }

  /**
   * throughPgBouncer returns a fresh instance of every fault of a run whose candidates reach
   * postgres through a transaction-mode PgBouncer ({@link PostgresStore#throughPgBouncer()}), in
   * report order. No term session to end there: an elector behind the pooler holds none.
   *
   * @return the faults
   */
  public static List<Fault> throughPgBouncer() {
    return withCandidateFaults(
        new MariaDbFaults.KillServer("pgbouncer-restart", "pgbouncer", PostgresFaults::bouncer),
        new MariaDbFaults.PauseServer("pgbouncer-pause", "pgbouncer", PostgresFaults::bouncer),
        new MariaDbFaults.KillServer("postgres-kill", "postgres", PostgresFaults::server),
        new MariaDbFaults.PauseServer("postgres-pause", "postgres", PostgresFaults::server));
  }

  /**
   * named returns those of {@code group} whose names {@code names} lists (comma separated), all
   * of them for null, blank or "all"; possibly none, when the list names only faults of the other
   * PostgreSQL run.
   *
   * @param group the faults of one run, {@link #all()} or {@link #throughPgBouncer()}
   * @param names the {@code -Dchaos.faults} value
   * @return the listed faults of {@code group}
   * @throws IllegalArgumentException naming a listed fault that neither run has, and the known ones
   */
  public static List<Fault> named(List<Fault> group, String names) {
    Map<String, Fault> known = new LinkedHashMap<>();
    Stream.concat(all().stream(), throughPgBouncer().stream()).forEach(f -> known.putIfAbsent(f.name(), f));
    List<String> listed = Faults.named(List.copyOf(known.values()), names).stream().map(Fault::name).toList();
    return group.stream().filter(f -> listed.contains(f.name())).toList();
  }

  private static List<Fault> withCandidateFaults(Fault... storeFaults) {
    List<Fault> out = new ArrayList<>(List.of(storeFaults));
    out.addAll(Faults.candidateFaults());
    return List.copyOf(out);
  }

  private static LocalServer server(ChaosContext ctx) {
    return ctx.store(PostgresStore.class).server();
  }

  private static LocalServer bouncer(ChaosContext ctx) {
    return ctx.store(PostgresStore.class).bouncer();
  }

  /**
   * {@code pg_terminate_backend} of the MASTER's term session: the session that holds the
   * advisory lock of the row's holder token (keyed by its first 64 bits: {@code classid} the high
   * 32, {@code objid} the low 32), as an operator or {@code idle_session_timeout} would. The term
   * is bound to its session, so the MASTER must step down at its next statement.
   */
  static final class TerminateSession implements Fault {
    @Override
    public String name() {
      return "postgres-terminate-session";
    }

    @Override
    public TargetKind kind() {
      return TargetKind.CANDIDATE;
    }

    @Override
    public String inject(ChaosContext ctx, Random random) throws InterruptedException {
      ChaosContext.Slot master = ctx.masterSlot();
      PostgresServer db = ctx.store(PostgresStore.class).server();
      List<List<String>> rows = db.sql("SELECT holder FROM leasehold_lease WHERE name = "
          + SqlChaosStore.literal(ctx.electionKey()) + " AND candidate = " + SqlChaosStore.literal(master.process()));
      String holder = rows.isEmpty() ? "" : rows.get(0).get(0);
      if (!holder.matches("[0-9a-f]{32}")) {
        throw new IllegalStateException("the lease row " + ctx.electionKey() + " names no term of "
            + master.process() + ": " + rows);
      }
      List<List<String>> pids = db.sql("SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted"
          + " AND objsubid = 1 AND classid = " + Long.parseLong(holder.substring(0, 8), 16)
          + " AND objid = " + Long.parseLong(holder.substring(8, 16), 16));
      if (pids.isEmpty()) {
        throw new IllegalStateException("no session holds the advisory lock of " + master.process() + "'s term");
      }
      String pid = pids.get(0).get(0);
      ctx.recorder().note("pg_terminate_backend(" + pid + ") (term session of " + master.process() + ")");
      db.terminateBackends("pid = " + Long.parseLong(pid));
      return master.process();
    }

    @Override
    public Duration hold(ChaosContext ctx, Random random) {
      return Duration.ofMillis(Faults.between(random, 0, 200));
    }

    @Override
    public void recover(ChaosContext ctx) {
      // Nothing to heal: the MASTER opens a new session itself.
    }
  }
}
