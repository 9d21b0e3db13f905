package dev.leasehold.it.chaos;

import dev.leasehold.it.LocalServer;
import dev.leasehold.it.chaos.History.TargetKind;
import dev.leasehold.it.mariadb.MariaDbServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;

/**
 * MariaDbFaults are the chaos faults of a run on MariaDB: mariadbd killed and restarted,
 * paused, and the MASTER's term session killed from outside, plus every candidate fault of
 * {@link Faults#candidateFaults()} (its link to mariadbd blackholed or reset, its JVM killed or
 * paused). Stateless; each fault instance is not thread-safe.
 */
public final class MariaDbFaults {
  private MariaDbFaults() {}

  /** all returns a fresh instance of every MariaDB fault, in report order. */
  public static List<Fault> all() {
    List<Fault> out = new ArrayList<>(List.of(new KillServer("mariadb-kill", "mariadbd", MariaDbFaults::server),
        new PauseServer("mariadb-pause", "mariadbd", MariaDbFaults::server), new KillSession()));
    out.addAll(Faults.candidateFaults());
    return List.copyOf(out);
  }

  /**
   * named returns the MariaDB faults whose names are listed (comma separated), or {@link #all()}
   * for null/blank/"all". The clock-rate nemesis ({@link SkewCandidateClock}: {@code
   * candidate-clock-within-bound}, {@code candidate-clock-beyond-bound}) runs on MariaDB only when
   * named: the suite's time budget has no room for it in the bounded run.
   */
  public static List<Fault> named(String names) {
    if (names == null || names.isBlank() || names.equals("all")) {
      return all();
    }
    List<Fault> known = new ArrayList<>(all());
    known.add(SkewCandidateClock.within());
    known.add(SkewCandidateClock.beyond());
    return Faults.named(known, names);
  }

  private static LocalServer server(ChaosContext ctx) {
    return ctx.store(MariaDbStore.class).server();
  }

  /**
   * SIGKILL the server (a database server: a crash, every session and lock gone; PgBouncer: every
   * client and server connection gone), then start it again on its port and data directory.
   * Shared by the SQL stores' fault lists.
   */
  static final class KillServer implements Fault {
    private final String name;
    private final String target;
    private final Function<ChaosContext, LocalServer> server;

    KillServer(String name, String target, Function<ChaosContext, LocalServer> server) {
      this.name = name;
      this.target = target;
      this.server = server;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public TargetKind kind() {
      return TargetKind.STORE;
    }

    @Override
    public boolean quorumKept() {
      return false;
    }

    @Override
    public String inject(ChaosContext ctx, Random random) {
      server.apply(ctx).kill();
      return target;
    }

    @Override
    public Duration hold(ChaosContext ctx, Random random) {
      return Duration.ofMillis(Faults.between(random, 500, 1500));
    }

    @Override
    public void recover(ChaosContext ctx) {
      server.apply(ctx).start();
    }
  }

  /**
   * SIGSTOP the server (a database server or PgBouncer) for between half and one and a half TTL,
   * then SIGCONT: connections stay open and nothing answers, so the MASTER's renewal times out
   * and ends its term. Shared by the SQL stores' fault lists.
   */
  static final class PauseServer implements Fault {
    private final String name;
    private final String target;
    private final Function<ChaosContext, LocalServer> server;

    PauseServer(String name, String target, Function<ChaosContext, LocalServer> server) {
      this.name = name;
      this.target = target;
      this.server = server;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public TargetKind kind() {
      return TargetKind.STORE;
    }

    @Override
    public boolean quorumKept() {
      return false;
    }

    @Override
    public String inject(ChaosContext ctx, Random random) {
      server.apply(ctx).pause();
      return target;
    }

    @Override
    public Duration hold(ChaosContext ctx, Random random) {
      return Duration.ofMillis(Faults.between(random, ctx.ttlMillis() / 2, ctx.ttlMillis() * 3 / 2));
    }

    @Override
    public void recover(ChaosContext ctx) {
      server.apply(ctx).resume();
    }
  }

  /**
   * {@code KILL} the MASTER's term session: the server session that holds the named lock of the
   * row's holder token ({@code IS_USED_LOCK('leasehold/' + holder)}), as an operator or a
   * {@code wait_timeout} would. The term is bound to its session, so the MASTER must step down
   * at its next statement. A candidate fault: the loss it causes is expected.
   */
  static final class KillSession implements Fault {
    @Override
    public String name() {
      return "mariadb-kill-session";
    }

    @Override
    public TargetKind kind() {
      return TargetKind.CANDIDATE;
    }

    @Override
    public String inject(ChaosContext ctx, Random random) throws InterruptedException {
      ChaosContext.Slot master = ctx.masterSlot();
      MariaDbServer db = ctx.store(MariaDbStore.class).server();
      String name = SqlChaosStore.literal(ctx.electionKey());
      List<List<String>> rows = db.sql("SELECT IS_USED_LOCK(CONCAT('leasehold/', holder)) FROM leasehold_lease"
          + " WHERE name = " + name + " AND candidate = " + SqlChaosStore.literal(master.process()));
      if (rows.isEmpty() || rows.get(0).get(0) == null) {
        throw new IllegalStateException("the lease row " + ctx.electionKey() + " names no live term session of "
            + master.process() + ": " + rows);
      }
      String session = rows.get(0).get(0);
      ctx.recorder().note("KILL " + session + " (term session of " + master.process() + ")");
      db.sql("KILL " + Long.parseLong(session));
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
