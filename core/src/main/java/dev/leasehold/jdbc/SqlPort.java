package dev.leasehold.jdbc;

import dev.leasehold.Guarantee;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.ConfigurationErrors;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.StoreCall;
import dev.leasehold.runtime.StorePort;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SqlPort is the SQL adapter behind the runtime's {@link StorePort}: it runs each
 * {@link SqlCommand} as its statement on the term session and answers with one
 * {@link SqlInput}. All JDBC runs on the store's own worker thread, one statement at a time in
 * the order sent, never on the runtime's event loop or dispatcher.
 *
 * <p>Sessions: one at a time, opened (and checked by {@link ServerCheck}) for the first
 * statement that needs one. A statement that fails, is refused or outlasts its call's timeout
 * ends the session (its named locks go with it) and is answered {@link SqlInput.Failed}; the
 * next statement opens a new session. Each call's deadline is its timeout, counted from the
 * moment it was handed over, less a small slack, so the store gives up no later than the
 * runtime does and the machine's view (a failure means the session is gone) stays true. An
 * RELEASE_LOCK with no session open is answered at once (session 0): the lock died with it.
 *
 * <p>Logs one line per distinct failure reason (not per retry) and one when statements
 * succeed again. Thread safety: the runtime calls it from its event loop; statements run on
 * the worker; {@link SqlCommand.EndWait} ends a wait in progress from an aborter thread.
 */
final class SqlPort implements StorePort {
  private static final Logger log = LoggerFactory.getLogger(SqlPort.class);
  // The store gives up this much before the runtime's timeout would fire.
  private static final long SLACK_NANOS = 2_000_000L;

  private final SessionSource source;
  private final TermSession.Settings settings;
  private final PoolerProbe pooler;
  private final long rpcTimeoutNanos;
  private final String logName;
  private ExecutorService worker;
  private ExecutorService aborter;

  // Worker-confined.
  private TermSession session;
  private long sessions;
  private String lastFailure;

  // Shared between the worker and the loop (EndWait).
  private volatile TermSession waitingIn;
  private volatile boolean endWaits;

  SqlPort(SessionSource source, TermSession.Settings settings, PoolerProbe pooler, long rpcTimeoutNanos,
      String logName) {
    this.source = source;
    this.settings = settings;
    this.pooler = pooler;
    this.rpcTimeoutNanos = rpcTimeoutNanos;
    this.logName = logName;
  }

  @Override
  public String backend() {
    return "jdbc";
  }

  @Override
  public Guarantee guarantee() {
    return Guarantee.SINGLE_DATABASE;
  }

  @Override
  public void open() {
    if (worker == null) {
      worker = Executors.newSingleThreadExecutor(r -> daemon(r, "leasehold-jdbc-" + logName));
      aborter = Executors.newSingleThreadExecutor(r -> daemon(r, "leasehold-jdbc-abort-" + logName));
    }
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  @Override
  public CompletionStage<? extends Input> call(StoreCall call) {
    SqlCommand cmd = (SqlCommand) call;
    long deadline = System.nanoTime() + call.timeoutNanos(rpcTimeoutNanos) - SLACK_NANOS;
    CompletableFuture<Input> reply = new CompletableFuture<>();
    try {
      worker.execute(() -> reply.complete(run(cmd, call, deadline)));
    } catch (RejectedExecutionException closed) {
      reply.complete(call.failed("the elector is closed"));
    }
    return reply;
  }

  private Input run(SqlCommand cmd, StoreCall call, long deadline) {
    if (cmd instanceof SqlCommand.Unlock u && session == null) {
      return new SqlInput.Unlocked(u.op(), 0);
    }
    try {
      TermSession s = session(deadline);
      Input answer = execute(s, cmd, deadline);
      if (System.nanoTime() - deadline > 0) {
        throw new SQLTimeoutException("answered after its timeout of "
            + call.timeoutNanos(rpcTimeoutNanos) / 1_000_000 + " ms");
      }
      if (lastFailure != null) {
        log.info("{}: statements succeed again on {}", logName, s);
        lastFailure = null;
      }
      return answer;
    } catch (SQLException | RuntimeException e) {
      endSession();
      if (endWaits) {
        // close() ended the wait (or anything after it); nothing to report.
        log.debug("{}: {} ended by close(): {}", logName, cmd, e.toString());
        return call.failed("ended by close()");
      }
      String reason = describe(e);
      // One line per kind of failure (its text before any detail in parentheses), not per retry.
      String kind = reason.contains(" (") ? reason.substring(0, reason.indexOf(" (")) : reason;
      if (!kind.equals(lastFailure)) {
        log.warn("{}: {}; the session is ended and a new one is tried with backoff", logName, reason);
        lastFailure = kind;
      } else {
        log.debug("{}: {}", logName, reason);
      }
      return call.failed(reason);
    }
  }

  private TermSession session(long deadline) throws SQLException {
    if (session == null) {
      session = TermSession.open(source, ++sessions, settings, pooler, deadline);
      log.debug("{}: opened {}", logName, session);
    }
    return session;
  }

  private Input execute(TermSession s, SqlCommand cmd, long deadline) throws SQLException {
    long n = s.number();
    if (cmd instanceof SqlCommand.Read r) {
      return new SqlInput.RowRead(r.op(), n, s.read(deadline));
    } else if (cmd instanceof SqlCommand.Lock l) {
      return new SqlInput.Locked(l.op(), n, s.getLock(l.holder(), 0, deadline));
    } else if (cmd instanceof SqlCommand.Await a) {
      waitingIn = s;
      try {
        // Checked after publishing waitingIn: an EndWait sees one or the other.
        if (endWaits) {
          throw new SQLException("the elector is closing");
        }
        return new SqlInput.Woken(a.op(), n, s.getLock(a.holder(), a.waitNanos(), deadline));
      } finally {
        waitingIn = null;
      }
    } else if (cmd instanceof SqlCommand.Unlock u) {
      s.releaseLock(u.holder(), deadline);
      return new SqlInput.Unlocked(u.op(), n);
    } else if (cmd instanceof SqlCommand.Take t) {
      boolean won = t.basis() == null
          ? s.insert(t.holder(), t.epoch(), deadline)
          : s.take(t.holder(), t.basis(), deadline);
      return new SqlInput.Taken(t.op(), n, won);
    } else if (cmd instanceof SqlCommand.Renew r) {
      return new SqlInput.Renewed(r.op(), n, s.renew(r.holder(), r.epoch(), deadline));
    } else if (cmd instanceof SqlCommand.Release r) {
      return new SqlInput.Released(r.op(), n, s.release(r.holder(), r.epoch(), deadline));
    }
    throw new IllegalArgumentException("not a SQL statement: " + cmd);
  }

  private void endSession() {
    if (session != null) {
      session.abort();
      session = null;
    }
  }

  @Override
  public void send(Command command, Consumer<Input> inbox) {
    if (!(command instanceof SqlCommand.EndWait)) {
      throw new IllegalArgumentException("not a SQL store command: " + command);
    }
    endWaits = true;
    TermSession waiting = waitingIn;
    if (waiting != null) {
      try {
        aborter.execute(waiting::abort);
      } catch (RejectedExecutionException closed) {
        waiting.abort();
      }
    }
  }

  @Override
  public CompletionStage<?> release(long leaseId) {
    // The SQL machine releases with S5 (SqlCommand.Release), never with the runtime's Release.
    return CompletableFuture.failedFuture(
        new UnsupportedOperationException("the SQL store releases rows with S5, not leases"));
  }

  @Override
  public String describe(Throwable failure) {
    Throwable t = failure;
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    // The server answered and refused this elector: only the operator can fix it (PROTOCOL.md §9).
    if (t instanceof ServerCheck.Refused) {
      return ConfigurationErrors.named(t.getMessage());
    }
    // MariaDB prefixes messages with "(conn=123) ": drop it, so one reason logs once.
    String message = String.valueOf(t.getMessage()).replaceFirst("^\\(conn=\\d+\\)\\s*", "");
    if (t instanceof SQLException e) {
      String state = e.getSQLState() == null ? "" : e.getSQLState();
      String lower = message.toLowerCase(Locale.ROOT);
      if (e.getErrorCode() == 1045 || state.startsWith("28")) {
        return ConfigurationErrors.named("access denied: wrong user or password (" + message + ")");
      }
      // MariaDB 1044 database, 1142 table, 1143 column; PostgreSQL 42501: a read-only user, say.
      if (e.getErrorCode() == 1142 || e.getErrorCode() == 1044 || e.getErrorCode() == 1143 || state.equals("42501")) {
        return ConfigurationErrors.named(
            "permission denied: the user lacks a privilege the elector needs (" + message + ")");
      }
      if (e instanceof SQLTimeoutException || lower.contains("timed out") || lower.contains("timeout")
          || lower.contains("timout")) {
        return "the server did not answer in time (" + message + ")";
      }
      if (state.startsWith("08")) {
        return "cannot reach the server (" + message + ")";
      }
      return message + (state.isEmpty() ? "" : " (SQLState " + state + ", error " + e.getErrorCode() + ")");
    }
    return t.toString();
  }

  @Override
  public void close() {
    if (worker == null) {
      return;
    }
    try {
      worker.execute(() -> {
        if (session != null) {
          session.close();
          session = null;
        }
      });
    } catch (RejectedExecutionException alreadyClosed) {
      // Closed before.
    }
    worker.shutdown();
    aborter.shutdown();
    // The session's end is what frees its named locks: wait for it (bounded by one RPC timeout,
    // which a statement in flight is held to), so that once close() returns no lock is left.
    try {
      if (!worker.awaitTermination(rpcTimeoutNanos, TimeUnit.NANOSECONDS)) {
        log.warn("{}: the term session did not close within {} ms; the server ends it and its locks",
            logName, rpcTimeoutNanos / 1_000_000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
