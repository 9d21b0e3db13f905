package dev.leasehold.it.jdbc;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderElector;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.it.mariadb.MariaDbServer;
import dev.leasehold.it.postgres.PostgresServer;
import dev.leasehold.jdbc.JdbcLeaderElector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * JdbcGroup is a set of in-process JDBC electors on one election name of one database server
 * (MariaDB or PostgreSQL), each with its event log. Thread-safe as far as the tests need: logs
 * are concurrent lists.
 */
final class JdbcGroup implements AutoCloseable {
  static final Duration TTL = Duration.ofSeconds(2);
  static final Duration POLL = Duration.ofMillis(500);
  static final Duration SOON = Duration.ofSeconds(10);

  final String url;
  final String user;
  final String password;
  final String election;
  final List<LeaderElector> electors = new ArrayList<>();
  final List<Events> logs = new ArrayList<>();

  JdbcGroup(MariaDbServer db, String test) {
    this(db.jdbcUrl(), db.rootUser(), db.rootPassword(), test);
  }

  JdbcGroup(PostgresServer db, String test) {
    this(db.jdbcUrl(), db.superuser(), db.superuserPassword(), test);
  }

  JdbcGroup(String url, String user, String password, String test) {
    this.url = url;
    this.user = user;
    this.password = password;
    this.election = "it/" + test + "/" + UUID.randomUUID().toString().substring(0, 8);
  }

  /**
   * builder is a builder for this group's election, as the server's superuser, durability
   * relaxed (the test servers trade it for speed).
   */
  JdbcLeaderElector.Builder builder(String candidateId) {
    return JdbcLeaderElector.builder()
        .jdbcUrl(url, user, password)
        .createTable(true)
        .allowRelaxedDurability(true)
        .electionKey(election)
        .candidateId(candidateId)
        .leaseTtl(TTL)
        .pollInterval(POLL);
  }

  LeaderElector add(String candidateId) {
    return add(candidateId, b -> {});
  }

  LeaderElector add(String candidateId, Consumer<JdbcLeaderElector.Builder> tweak) {
    JdbcLeaderElector.Builder b = builder(candidateId);
    tweak.accept(b);
    return add(b.build(), candidateId);
  }

  LeaderElector add(LeaderElector e, String name) {
    Events log = new Events(name);
    e.onLeadershipChanged(log);
    electors.add(e);
    logs.add(log);
    return e;
  }

  void startAll() {
    electors.forEach(LeaderElector::start);
  }

  Events log(LeaderElector e) {
    return logs.get(electors.indexOf(e));
  }

  long leaderCount() {
    return electors.stream().filter(LeaderElector::isLeader).count();
  }

  /** awaitLeader waits until exactly one elector leads and every other knows it; returns it. */
  LeaderElector awaitLeader() {
    return await().atMost(SOON).until(this::settledLeader, Optional::isPresent).get();
  }

  /** awaitLeaderOtherThan waits for a settled leader that is not {@code old}. */
  LeaderElector awaitLeaderOtherThan(LeaderElector old) {
    return await().atMost(SOON).until(this::settledLeader, l -> l.isPresent() && l.get() != old).get();
  }

  private Optional<LeaderElector> settledLeader() {
    List<LeaderElector> leaders = electors.stream().filter(LeaderElector::isLeader).toList();
    if (leaders.size() != 1) {
      return Optional.empty();
    }
    LeaderElector leader = leaders.get(0);
    long token = leader.leadership().map(l -> l.fencingToken()).orElse(-1L);
    for (int i = 0; i < electors.size(); i++) {
      LeaderElector e = electors.get(i);
      if (e.state() == ElectorState.STOPPED) {
        continue;
      }
      if (e.currentLeader().map(l -> l.fencingToken() != token).orElse(true)) {
        return Optional.empty();
      }
      // A listener has heard of it too.
      if (e != leader && logs.get(i).last().map(ev -> ev.fencingToken().orElse(-1)).orElse(-1L) != token) {
        return Optional.empty();
      }
    }
    return Optional.of(leader);
  }

  /** assertNoOverlap checks that no two electors' terms (ELECTED to loss, on one clock) overlap. */
  void assertNoOverlap() {
    List<long[]> terms = new ArrayList<>();
    for (Events log : logs) {
      terms.addAll(log.terms());
    }
    terms.sort((a, b) -> Long.compare(a[0], b[0]));
    for (int i = 1; i < terms.size(); i++) {
      assertTrue(terms.get(i)[0] >= terms.get(i - 1)[1],
          "term of token " + terms.get(i)[2] + " began before the term of token " + terms.get(i - 1)[2] + " ended");
    }
  }

  /** assertPaired checks every log's order and pairing. */
  void assertPaired() {
    logs.forEach(Events::assertPaired);
  }

  @Override
  public void close() {
    electors.forEach(LeaderElector::close);
  }

  /** Events is one listener's record of events. */
  static final class Events implements dev.leasehold.LeadershipListener {
    final String name;
    private final List<LeadershipEvent> events = new CopyOnWriteArrayList<>();

    Events(String name) {
      this.name = name;
    }

    @Override
    public void onLeadershipChanged(LeadershipEvent event) {
      events.add(event);
    }

    List<LeadershipEvent> all() {
      return new ArrayList<>(events);
    }

    Optional<LeadershipEvent> last() {
      List<LeadershipEvent> es = all();
      return es.isEmpty() ? Optional.empty() : Optional.of(es.get(es.size() - 1));
    }

    boolean has(Cause cause) {
      return events.stream().anyMatch(e -> e.cause() == cause);
    }

    long count(Cause cause) {
      return events.stream().filter(e -> e.cause() == cause).count();
    }

    /** awaitLoss waits for an event that ends a term and returns it. */
    LeadershipEvent awaitLoss(Duration atMost) {
      return await().atMost(atMost).until(
          () -> events.stream().filter(LeadershipEvent::isLost).reduce((a, b) -> b), Optional::isPresent).get();
    }

    /** awaitEvent waits for the first event of {@code cause} at or after {@code sinceNanos}. */
    LeadershipEvent awaitEvent(Cause cause, long sinceNanos, Duration atMost) {
      return await().atMost(atMost).until(
          () -> events.stream().filter(e -> e.cause() == cause && e.nanoTime() >= sinceNanos).findFirst(),
          Optional::isPresent).get();
    }

    /** terms are [elected, lost, token] of each term; an open term ends at Long.MAX_VALUE. */
    List<long[]> terms() {
      List<long[]> out = new ArrayList<>();
      long[] open = null;
      for (LeadershipEvent e : all()) {
        if (e.isElected()) {
          open = new long[] {e.nanoTime(), Long.MAX_VALUE, e.fencingToken().orElse(0)};
          out.add(open);
        } else if (e.isLost() && open != null) {
          open[1] = e.nanoTime();
          open = null;
        }
      }
      return out;
    }

    void assertPaired() {
      List<LeadershipEvent> es = all();
      assertFalse(es.isEmpty(), name + ": no events");
      assertEquals(Cause.SUBSCRIBED, es.get(0).cause(), name + ": first event");
      boolean leading = es.get(0).isElected();
      boolean unavailable = false;
      for (LeadershipEvent e : es.subList(1, es.size())) {
        if (e.isElected()) {
          if (leading) {
            fail(name + ": ELECTED twice without a loss: " + es);
          }
          leading = true;
        } else if (e.isLost()) {
          if (!leading) {
            fail(name + ": a loss without a term: " + es);
          }
          assertTrue(e.cause().isLoss(), name + ": " + e);
          leading = false;
        }
        if (e.cause() == Cause.STORE_UNAVAILABLE) {
          assertFalse(unavailable, name + ": STORE_UNAVAILABLE twice in one outage: " + es);
          unavailable = true;
        } else if (e.cause() == Cause.STORE_RECOVERED) {
          assertTrue(unavailable, name + ": STORE_RECOVERED without an outage: " + es);
          unavailable = false;
        }
      }
    }
  }
}
