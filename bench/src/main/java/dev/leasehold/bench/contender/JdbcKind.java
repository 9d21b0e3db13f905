package dev.leasehold.bench.contender;

/**
 * JdbcKind names the MariaDB/MySQL election implementations the bench compares. Immutable and
 * thread-safe.
 */
public enum JdbcKind {
  /** LEASEHOLD_JDBC is this project's {@code JdbcLeaderElector} with its defaults. */
  LEASEHOLD_JDBC("Leasehold-JDBC"),
  /** GET_LOCK is the scheduler design's elector: GET_LOCK(name, 0) every 2 s, no deadline, no fencing. */
  GET_LOCK("GET_LOCK every 2 s (scheduler design)");

  private final String label;

  JdbcKind(String label) {
    this.label = label;
  }

  /** label is the name used in the report and the plots. */
  public String label() {
    return label;
  }

  /** create builds one candidate on the server at {@code url}; {@code key} names the election. */
  public Contender create(String url, String user, String password, String key, String id, long ttlMillis,
      Contender.Sink sink) {
    return switch (this) {
      case LEASEHOLD_JDBC -> new LeaseholdJdbcContender(url, user, password, key, id, ttlMillis, sink);
      case GET_LOCK -> new GetLockContender(url, user, password, key, ttlMillis, sink);
    };
  }
}
