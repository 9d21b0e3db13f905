package dev.leasehold.bench.contender;

import java.util.List;
import java.util.Set;

/**
 * JdbcKind names the SQL election implementations the bench compares, and the servers each runs on. Immutable and
 * thread-safe.
 */
public enum JdbcKind {
  /** LEASEHOLD_JDBC is this project's {@code JdbcLeaderElector} with its defaults, on MariaDB and PostgreSQL. */
  LEASEHOLD_JDBC("Leasehold-JDBC", Set.of(Server.MARIADB, Server.POSTGRES)),
  /** GET_LOCK is the scheduler design's elector: GET_LOCK(name, 0) every 2 s, no deadline, no fencing. */
  GET_LOCK("GET_LOCK every 2 s (scheduler design)", Set.of(Server.MARIADB)),
  /** SHEDLOCK is ShedLock's JDBC lock row used as a leader lock: polled every second, no deadline, no fencing. */
  SHEDLOCK("ShedLock-style lock row, polled every 1 s", Set.of(Server.POSTGRES)),
  /** PG_ADVISORY_LOCK is the scheduler design on PostgreSQL: pg_try_advisory_lock every 2 s. */
  PG_ADVISORY_LOCK("pg_try_advisory_lock every 2 s (scheduler design)", Set.of(Server.POSTGRES));

  /** Server is a database server the bench runs contenders against. */
  public enum Server {
    /** MARIADB is a private mariadbd. */
    MARIADB,
    /** POSTGRES is a private postgres. */
    POSTGRES
  }

  private final String label;
  private final Set<Server> servers;

  JdbcKind(String label, Set<Server> servers) {
    this.label = label;
    this.servers = servers;
  }

  /** label is the name used in the report and the plots. */
  public String label() {
    return label;
  }

  /** runsOn tells whether this implementation can run against {@code server}. */
  public boolean runsOn(Server server) {
    return servers.contains(server);
  }

  /**
   * schema is the DDL the bench runs as the server's administrator before this contender's candidates start: the
   * tables a user of that library is told to create (none for the others, or created by the library itself).
   */
  public List<String> schema() {
    return this == SHEDLOCK ? List.of(ShedLockRow.DDL) : List.of();
  }

  /** create builds one candidate on the server at {@code url}; {@code key} names the election. */
  public Contender create(String url, String user, String password, String key, String id, long ttlMillis,
      Contender.Sink sink) {
    return switch (this) {
      case LEASEHOLD_JDBC -> new LeaseholdJdbcContender(url, user, password, key, id, ttlMillis, sink);
      case GET_LOCK -> new PolledLockContender(new SessionLock(SessionLock.Dialect.MARIADB, key, ttlMillis), url,
          user, password, id, sink);
      case SHEDLOCK -> new PolledLockContender(new ShedLockRow(key, id, ttlMillis), url, user, password, id, sink);
      case PG_ADVISORY_LOCK -> new PolledLockContender(new SessionLock(SessionLock.Dialect.POSTGRES, key,
          ttlMillis), url, user, password, id, sink);
    };  }
}
