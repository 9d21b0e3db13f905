package dev.leasehold.it.jdbc;

import static dev.leasehold.it.jdbc.JdbcGroup.SOON;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.leasehold.ElectorState;
import dev.leasehold.LeaderElector;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.jdbc.JdbcLeaderElector;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.LoggerFactory;

/**
 * Refusals captures the SQL store's log while a test starts electors that must be refused, and
 * checks what every refusal owes the user: the reason logged once (not per retry), one
 * STORE_UNAVAILABLE, never a term, nothing written. Not thread-safe: one per test.
 */
final class Refusals implements AutoCloseable {
  final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  private final Logger storeLog = (Logger) LoggerFactory.getLogger("dev.leasehold.jdbc.SqlPort");

  Refusals() {
    logged.start();
    storeLog.addAppender(logged);
  }

  /**
   * refused starts one elector of {@code g} configured by {@code tweak}, checks the refusal and
   * returns the reason it logged; {@code rowsWritten} counts the election's rows afterwards.
   */
  String refused(JdbcGroup g, Consumer<JdbcLeaderElector.Builder> tweak, LongSupplier rowsWritten) {
    LeaderElector e = g.add("x", tweak);
    e.start();
    String message = awaitRefusal(g, e);
    // It keeps retrying with backoff and never leads; the reason is logged once, not per retry.
    await().during(Duration.ofMillis(1200)).atMost(Duration.ofSeconds(3)).until(
        () -> e.state() == ElectorState.FOLLOWER && !e.isLeader());
    assertFalse(g.log(e).has(Cause.ELECTED), "led while refused");
    assertEquals(1, g.log(e).count(Cause.STORE_UNAVAILABLE), "reported once per outage");
    assertEquals(1, logged.list.stream().filter(l -> l.getFormattedMessage().contains(firstLine(message))).count(),
        "logged once: " + logged.list);
    assertEquals(0, rowsWritten.getAsLong(), "no row was written");
    return message;
  }

  /** awaitRefusal waits for {@code e}'s STORE_UNAVAILABLE and returns the line its store logged. */
  String awaitRefusal(JdbcGroup g, LeaderElector e) {
    await().atMost(SOON).until(() -> g.log(e).has(Cause.STORE_UNAVAILABLE));
    assertEquals(ElectorState.FOLLOWER, e.state());
    assertFalse(e.isLeader());
    String name = e.config().candidateId() + "@" + e.config().electionKey();
    return await().atMost(SOON).until(() -> logged.list.stream().map(ILoggingEvent::getFormattedMessage)
        .filter(m -> m.contains(name)).findFirst(), Optional::isPresent).get();
  }

  /** clear forgets what was logged so far. */
  void clear() {
    logged.list.clear();
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  @Override
  public void close() {
    storeLog.detachAppender(logged);
  }

  /** none is a row count for tests where the table cannot exist. */
  static long none() {
    return 0;
  }

  /** count parses a one-cell COUNT(*) result. */
  static long count(List<List<String>> rows) {
    return rows.isEmpty() ? 0 : Long.parseLong(rows.get(0).get(0));
  }
}
