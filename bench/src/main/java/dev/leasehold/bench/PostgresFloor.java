package dev.leasehold.bench;

import dev.leasehold.it.postgres.PgBouncer;
import dev.leasehold.it.postgres.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * PostgresFloor measures what a private PostgreSQL server on this machine allows at best for the two candidate
 * wake-ups of a PostgreSQL election and for its lease row, with raw pgjdbc calls and no election library in
 * between: a NOTIFY's trip to a LISTENer, a blocked {@code pg_advisory_lock} freed by the holder's unlock, by
 * {@code pg_terminate_backend} and by the holder's client vanishing, a lease-row take and renewal, and the NOTIFY and
 * the row statements again through PgBouncer in transaction pooling.
 *
 * <p>Each figure is measured {@code samples} times after {@code warmup} unrecorded rounds, back to back, on
 * connections opened beforehand (the holders the session-end figures end are opened before each trial, outside the
 * time). Times are {@link System#nanoTime()} in this JVM. Not thread-safe; run from one thread.
 */
final class PostgresFloor {
  static final String SELECT_1 = "SELECT 1 round trip";
  static final String NOTIFY = "NOTIFY → LISTEN: the notifier's commit sent → the notification at the listener";
  static final String NOTIFY_COMMIT = "NOTIFY: the notifier's commit round trip";
  static final String NOTIFY_RELEASE =
      "release path, NOTIFY: release UPDATE + pg_notify + commit sent → the notification at the listener";
  static final String UNLOCK = "pg_advisory_unlock sent → the blocked pg_advisory_lock returns";
  static final String UNLOCK_RELEASE = "release path, advisory lock: release UPDATE + commit, then "
      + "pg_advisory_unlock sent → the blocked pg_advisory_lock returns";
  static final String TERMINATE = "pg_terminate_backend(holder) sent → the blocked pg_advisory_lock returns";
  static final String ABORT = "holder's socket closed without a word → the blocked pg_advisory_lock returns";
  static final String TAKE = "lease-row take: upsert (epoch + 1, clock_timestamp() expiry) + commit";
  static final String RENEW = "lease-row renewal: conditional UPDATE + commit";
  static final String BOUNCER_SELECT_1 = "PgBouncer (transaction): SELECT 1 round trip";
  static final String BOUNCER_NOTIFY =
      "PgBouncer (transaction): the notifier's commit sent → the notification at a direct listener";
  static final String BOUNCER_TAKE = "PgBouncer (transaction): lease-row take + commit";
  static final String BOUNCER_RENEW = "PgBouncer (transaction): lease-row renewal + commit";

  /** TABLE is the floor's own lease table, made like the dialect's will be: one row per election name. */
  static final String TABLE = "leasehold_floor";

  private static final String DDL = "CREATE TABLE IF NOT EXISTS " + TABLE + " (name text PRIMARY KEY, "
      + "holder text NOT NULL, epoch bigint NOT NULL, expires_at timestamptz NOT NULL)";
  // A take of a free or expired row: inserts the first time, else bumps the epoch; the server's clock decides.
  private static final String TAKE_SQL = "INSERT INTO " + TABLE + " AS l (name, holder, epoch, expires_at) "
      + "VALUES (?, ?, 1, clock_timestamp() + ? * interval '1 millisecond') ON CONFLICT (name) DO UPDATE "
      + "SET holder = EXCLUDED.holder, epoch = l.epoch + 1, expires_at = EXCLUDED.expires_at "
      + "WHERE l.expires_at <= clock_timestamp() RETURNING epoch";
  private static final String RENEW_SQL = "UPDATE " + TABLE + " SET expires_at = clock_timestamp() + ? * interval "
      + "'1 millisecond' WHERE name = ? AND holder = ? AND epoch = ?";
  private static final String RELEASE_SQL = "UPDATE " + TABLE + " SET expires_at = clock_timestamp() "
      + "WHERE name = ?";
  private static final long WAIT_SECONDS = 5;

  private final PostgresServer db;
  private final PgBouncer bouncer;
  private final long ttlMillis;
  private final ExecutorService blocking = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "postgres-floor-blocking");
    t.setDaemon(true);
    return t;
  });

  /** PostgresFloor measures against {@code db} and, through it, {@code bouncer}; rows get {@code ttlMillis}. */
  PostgresFloor(PostgresServer db, PgBouncer bouncer, long ttlMillis) {
    this.db = db;
    this.bouncer = bouncer;
    this.ttlMillis = ttlMillis;
  }

  /** run measures every figure and returns them by name, in the report's order. */
  Map<String, List<Double>> run(int samples, int warmup) throws Exception {
    Map<String, List<Double>> out = new LinkedHashMap<>();
    db.sql(DDL);
    String direct = db.jdbcUrl();
    // pgbouncer 1.18 keeps no prepared statement across transactions (PgBouncer's class comment).
    String pooled = bouncer.jdbcUrl() + "?prepareThreshold=0";
    try {
      out.put(SELECT_1, roundTrips(direct, samples, warmup));
      notify(direct, samples, warmup, out, NOTIFY, NOTIFY_COMMIT, false);
      notify(direct, samples, warmup, out, NOTIFY_RELEASE, null, true);
      out.put(UNLOCK, unlockWakes(samples, warmup, false));
      out.put(UNLOCK_RELEASE, unlockWakes(samples, warmup, true));
      out.put(TERMINATE, sessionEndWakes(samples, warmup, true));
      out.put(ABORT, sessionEndWakes(samples, warmup, false));
      rowTakes(direct, samples, warmup, out, TAKE, RENEW);
      out.put(BOUNCER_SELECT_1, roundTrips(pooled, samples, warmup));
      notify(pooled, samples, warmup, out, BOUNCER_NOTIFY, null, false);
      rowTakes(pooled, samples, warmup, out, BOUNCER_TAKE, BOUNCER_RENEW);
    } finally {
      blocking.shutdownNow();
    }
    return out;
  }

  private List<Double> roundTrips(String url, int samples, int warmup) throws Exception {
    List<Double> lat = new ArrayList<>();
    try (Connection c = connect(url); PreparedStatement st = c.prepareStatement("SELECT 1")) {
      for (int i = 0; i < warmup + samples; i++) {
        long t0 = System.nanoTime();
        try (ResultSet rs = st.executeQuery()) {
          rs.next();
        }
        record(lat, i, warmup, System.nanoTime() - t0);
      }
    }
    return lat;
  }

  /**
   * notify sends {@code pg_notify} in its own transaction on a connection to {@code notifierUrl} and times, from the
   * commit's send, its arrival at a LISTENer on a direct connection that blocks in
   * {@code PGConnection.getNotifications(timeout)} on a thread of its own (and, when {@code commitFigure} is set,
   * the commit's own round trip). With {@code inRelease} the notification rides a lease row's release, as a
   * NOTIFY wake-up would, and the time runs from the release's send: a transaction that writes waits for its WAL
   * flush before it commits and notifies, one that only notifies does not.
   */
  private void notify(String notifierUrl, int samples, int warmup, Map<String, List<Double>> out, String figure,
      String commitFigure, boolean inRelease) throws Exception {
    String channel = "floor_" + UUID.randomUUID().toString().replace("-", "");
    List<Double> arrival = new ArrayList<>();
    List<Double> commit = new ArrayList<>();
    BlockingQueue<Long> arrivals = new LinkedBlockingQueue<>();
    try (Connection listener = connect(db.jdbcUrl()); Connection notifier = connect(notifierUrl)) {
      execute(listener, "LISTEN " + channel);
      PGConnection pg = listener.unwrap(PGConnection.class);
      Future<?> listening = blocking.submit(() -> {
        while (!Thread.currentThread().isInterrupted()) {
          PGNotification[] got = pg.getNotifications(500);
          long now = System.nanoTime();
          for (int n = 0; got != null && n < got.length; n++) {
            arrivals.add(now);
          }
        }
        return null;
      });
      notifier.setAutoCommit(false);
      String row = "floor." + UUID.randomUUID();
      try (PreparedStatement st = notifier.prepareStatement("SELECT pg_notify(?, ?)");
          PreparedStatement release = notifier.prepareStatement(RELEASE_SQL)) {
        if (inRelease) {
          takeFreshRow(notifier, row);
        }
        for (int i = 0; i < warmup + samples; i++) {
          arrivals.clear();
          long t0 = System.nanoTime();
          if (inRelease) {
            release.setString(1, row);
            release.executeUpdate();
          }
          st.setString(1, channel);
          st.setString(2, Integer.toString(i));
          st.execute();
          if (!inRelease) {
            t0 = System.nanoTime();
          }
          notifier.commit();
          long acked = System.nanoTime();
          Long at = arrivals.poll(WAIT_SECONDS, TimeUnit.SECONDS);
          if (at == null) {
            throw new IllegalStateException(figure + ": notification " + i + " did not arrive within "
                + WAIT_SECONDS + " s");
          }
          record(arrival, i, warmup, at - t0);
          record(commit, i, warmup, acked - t0);
        }
      } finally {
        listening.cancel(true);
      }
    }
    out.put(figure, arrival);
    if (commitFigure != null) {
      out.put(commitFigure, commit);
    }
  }

  /**
   * unlockWakes times a blocked pg_advisory_lock's return after the holder's pg_advisory_unlock is sent; with
   * {@code inRelease}, from the send of the lease row's release (UPDATE + commit) that comes before the unlock, as
   * an advisory-lock wake-up would run them.
   */
  private List<Double> unlockWakes(int samples, int warmup, boolean inRelease) throws Exception {
    List<Double> lat = new ArrayList<>();
    long key = ThreadLocalRandom.current().nextLong();
    String row = "floor." + UUID.randomUUID();
    try (Connection holder = connect(db.jdbcUrl()); Connection waiter = connect(db.jdbcUrl());
        Connection admin = connect(db.jdbcUrl()); PreparedStatement release = holder.prepareStatement(RELEASE_SQL)) {
      if (inRelease) {
        holder.setAutoCommit(false);
        takeFreshRow(holder, row);
        holder.setAutoCommit(true);
      }
      for (int i = 0; i < warmup + samples; i++) {
        execute(holder, "SELECT pg_advisory_lock(" + key + ")");
        Future<Long> woken = blockedLock(admin, waiter, key);
        long t0 = System.nanoTime();
        if (inRelease) {
          release.setString(1, row);
          release.executeUpdate();
        }
        execute(holder, "SELECT pg_advisory_unlock(" + key + ")");
        record(lat, i, warmup, woken.get(WAIT_SECONDS, TimeUnit.SECONDS) - t0);
        execute(waiter, "SELECT pg_advisory_unlock(" + key + ")");
      }
    }
    return lat;
  }

  /**
   * sessionEndWakes times a blocked pg_advisory_lock's return after the holder's session ends: by
   * {@code pg_terminate_backend} from a third session ({@code terminate}), or by the holder's client closing its
   * socket without the protocol's goodbye, as the kernel does for a process killed with SIGKILL.
   */
  private List<Double> sessionEndWakes(int samples, int warmup, boolean terminate) throws Exception {
    List<Double> lat = new ArrayList<>();
    long key = ThreadLocalRandom.current().nextLong();
    try (Connection waiter = connect(db.jdbcUrl()); Connection admin = connect(db.jdbcUrl());
        PreparedStatement kill = admin.prepareStatement("SELECT pg_terminate_backend(?)")) {
      for (int i = 0; i < warmup + samples; i++) {
        Connection holder = connect(db.jdbcUrl());
        try {
          execute(holder, "SELECT pg_advisory_lock(" + key + ")");
          int holderPid = pid(holder);
          Future<Long> woken = blockedLock(admin, waiter, key);
          long t0 = System.nanoTime();
          if (terminate) {
            kill.setInt(1, holderPid);
            kill.execute();
          } else {
            holder.abort(Runnable::run);
          }
          record(lat, i, warmup, woken.get(WAIT_SECONDS, TimeUnit.SECONDS) - t0);
        } finally {
          closeQuietly(holder);
        }
        execute(waiter, "SELECT pg_advisory_unlock(" + key + ")");
      }
    }
    return lat;
  }

  /**
   * blockedLock starts pg_advisory_lock(key) on {@code waiter} and returns, once the server shows it waiting, a
   * future of the time it returned.
   */
  private Future<Long> blockedLock(Connection admin, Connection waiter, long key) throws Exception {
    int waiterPid = pid(waiter);
    Future<Long> woken = blocking.submit(() -> {
      execute(waiter, "SELECT pg_advisory_lock(" + key + ")");
      return System.nanoTime();
    });
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    try (PreparedStatement st = admin.prepareStatement("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' "
        + "AND NOT granted AND pid = ?")) {
      st.setInt(1, waiterPid);
      while (true) {
        try (ResultSet rs = st.executeQuery()) {
          if (rs.next()) {
            return woken;
          }
        }
        if (System.nanoTime() > deadline || woken.isDone()) {
          throw new IllegalStateException("pg_advisory_lock(" + key + ") on pid " + waiterPid + " is not waiting");
        }
        Thread.sleep(1);
      }
    }
  }

  /**
   * rowTakes times, on a connection to {@code url} without autocommit, a lease-row take (an upsert that bumps the
   * epoch of an expired row, then commit) and the renewal that follows (a conditional UPDATE, then commit); the row
   * is released between trials, outside the time.
   */
  private void rowTakes(String url, int samples, int warmup, Map<String, List<Double>> out, String takeFigure,
      String renewFigure) throws Exception {
    List<Double> takes = new ArrayList<>();
    List<Double> renewals = new ArrayList<>();
    String name = "floor." + UUID.randomUUID();
    try (Connection c = connect(url); PreparedStatement take = c.prepareStatement(TAKE_SQL);
        PreparedStatement renew = c.prepareStatement(RENEW_SQL);
        PreparedStatement release = c.prepareStatement(RELEASE_SQL)) {
      c.setAutoCommit(false);
      for (int i = 0; i < warmup + samples; i++) {
        release.setString(1, name);
        release.executeUpdate();
        c.commit();
        String holder = UUID.randomUUID().toString().replace("-", "");
        take.setString(1, name);
        take.setString(2, holder);
        take.setLong(3, ttlMillis);
        long t0 = System.nanoTime();
        long epoch;
        try (ResultSet rs = take.executeQuery()) {
          if (!rs.next()) {
            throw new IllegalStateException(takeFigure + ": trial " + i + " took no row");
          }
          epoch = rs.getLong(1);
        }
        c.commit();
        long t1 = System.nanoTime();
        renew.setLong(1, ttlMillis);
        renew.setString(2, name);
        renew.setString(3, holder);
        renew.setLong(4, epoch);
        int renewed = renew.executeUpdate();
        c.commit();
        long t2 = System.nanoTime();
        if (renewed != 1) {
          throw new IllegalStateException(renewFigure + ": trial " + i + " renewed " + renewed + " rows");
        }
        record(takes, i, warmup, t1 - t0);
        record(renewals, i, warmup, t2 - t1);
      }
    }
    out.put(takeFigure, takes);
    out.put(renewFigure, renewals);
  }

  /** takeFreshRow inserts a lease row for {@code name} and commits, on a connection without autocommit. */
  private void takeFreshRow(Connection c, String name) throws SQLException {
    try (PreparedStatement take = c.prepareStatement(TAKE_SQL)) {
      take.setString(1, name);
      take.setString(2, "floor");
      take.setLong(3, ttlMillis);
      take.executeQuery().close();
    }
    c.commit();
  }

  private Connection connect(String url) throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", db.superuser());
    p.setProperty("password", db.superuserPassword());
    p.setProperty("ApplicationName", "leasehold-bench-floor");
    p.setProperty("socketTimeout", "30");
    return DriverManager.getConnection(url, p);
  }

  /** closeQuietly closes a connection whose session may have been ended under it. */
  private static void closeQuietly(Connection c) {
    try {
      c.close();
    } catch (SQLException alreadyGone) {
      // Ended on purpose by the trial.
    }
  }

  private static int pid(Connection c) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("SELECT pg_backend_pid()"); ResultSet rs = st.executeQuery()) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private static void execute(Connection c, String sql) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(sql)) {
      st.execute();
    }
  }

  private static void record(List<Double> into, int trial, int warmup, long nanos) {
    if (trial >= warmup) {
      into.add(nanos / 1e6);
    }
  }
}
