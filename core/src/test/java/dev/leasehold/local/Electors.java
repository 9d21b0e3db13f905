package dev.leasehold.local;

import dev.leasehold.LeaderElector;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderInfo;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionFactory;

/** Electors is a group of local electors on one store with every event they reported; for tests. */
final class Electors implements AutoCloseable {
  static final String KEY = "/leasehold/test";

  final LocalStore store;
  final List<LeaderElector> all = new ArrayList<>();
  private final Map<LeaderElector, List<LeadershipEvent>> events = new ConcurrentHashMap<>();

  Electors(LocalStore store) {
    this.store = store;
  }

  /** waiting is a bounded wait that polls often: local handovers take milliseconds. */
  static ConditionFactory waiting(Duration atMost) {
    return await().atMost(atMost).pollInterval(Duration.ofMillis(5)).pollDelay(Duration.ZERO);
  }

  /** add builds one elector on the store: TTL 2 s, fast retries, unless {@code tweak} says so. */
  LeaderElector add(String candidateId, UnaryOperator<LocalLeaderElector.Builder> tweak) {
    LocalLeaderElector.Builder b =
        LocalLeaderElector.builder()
            .store(store)
            .electionKey(KEY)
            .candidateId(candidateId)
            .leaseTtl(Duration.ofSeconds(2))
            .pollInterval(Duration.ofMillis(200))
            .retryBackoff(Duration.ofMillis(20), Duration.ofMillis(200));
    LeaderElector e = tweak.apply(b).build();
    List<LeadershipEvent> log = new CopyOnWriteArrayList<>();
    events.put(e, log);
    e.onLeadershipChanged(log::add);
    all.add(e);
    return e;
  }

  /** start adds {@code n} electors named c0..c(n-1) and starts them. */
  Electors start(int n, UnaryOperator<LocalLeaderElector.Builder> tweak) {
    for (int i = 0; i < n; i++) {
      add("c" + i, tweak).start();
    }
    return this;
  }

  List<LeadershipEvent> events(LeaderElector e) {
    return events.get(e);
  }

  List<LeaderElector> leaders() {
    return all.stream().filter(LeaderElector::isLeader).collect(Collectors.toList());
  }

  /**
   * awaitLeader waits until exactly one elector leads with a token above {@code afterToken},
   * the store agrees, every other running elector knows that leader, and every listener has
   * heard of it (events reach listeners after the elector's state has changed).
   */
  LeaderElector awaitLeader(long afterToken, Duration atMost) {
    waiting(atMost).until(() -> settledLeader(afterToken).isPresent());
    return settledLeader(afterToken).orElseThrow();
  }

  private Optional<LeaderElector> settledLeader(long afterToken) {
    List<LeaderElector> leaders = leaders();
    if (leaders.size() != 1) {
      return Optional.empty();
    }
    LeaderElector leader = leaders.get(0);
    Optional<LeaderInfo> info = leader.currentLeader();
    if (info.isEmpty() || info.get().fencingToken() <= afterToken
        || !store.leaderOf(KEY).equals(info)) {
      return Optional.empty();
    }
    for (LeaderElector e : all) {
      if (e.state() == ElectorState.STOPPED) {
        continue;
      }
      List<LeadershipEvent> log = events(e);
      if (!e.currentLeader().equals(info) || log.isEmpty()
          || !log.get(log.size() - 1).leader().equals(info)) {
        return Optional.empty();
      }
    }
    return Optional.of(leader);
  }

  /** awaitEvent waits for {@code e} to report {@code cause} and returns the first such event. */
  LeadershipEvent awaitEvent(LeaderElector e, Cause cause, Duration atMost) {
    return awaitEvent(e, cause, 0, atMost);
  }

  /** awaitEvent waits for {@code e} to report {@code cause} as its event {@code from} or later. */
  LeadershipEvent awaitEvent(LeaderElector e, Cause cause, int from, Duration atMost) {
    waiting(atMost).until(() -> find(e, cause, from).isPresent());
    return find(e, cause, from).orElseThrow();
  }

  Optional<LeadershipEvent> find(LeaderElector e, Cause cause) {
    return find(e, cause, 0);
  }

  private Optional<LeadershipEvent> find(LeaderElector e, Cause cause, int from) {
    // A snapshot: a view of the live list would throw once a listener appends to it.
    List<LeadershipEvent> log = List.copyOf(events(e));
    return log.subList(Math.min(from, log.size()), log.size()).stream()
        .filter(ev -> ev.cause() == cause)
        .findFirst();
  }

  List<Cause> causes(LeaderElector e) {
    return events(e).stream().map(LeadershipEvent::cause).collect(Collectors.toList());
  }

  /** electedTokens is every ELECTED event's token, in the order the terms began. */
  List<Long> electedTokens() {
    return events.values().stream()
        .flatMap(List::stream)
        .filter(ev -> ev.cause() == Cause.ELECTED)
        .sorted(Comparator.comparingLong(LeadershipEvent::nanoTime))
        .map(ev -> ev.fencingToken().orElseThrow())
        .collect(Collectors.toList());
  }

  /**
   * assertNoOverlap checks, from every elector's events, that each term (ELECTED to the event
   * that ended it) ended before the next began; call it after closing, when all events are in.
   */
  void assertNoOverlap() {
    List<long[]> terms = new ArrayList<>();
    for (List<LeadershipEvent> log : events.values()) {
      Long start = null;
      for (LeadershipEvent ev : log) {
        if (ev.isElected()) {
          start = ev.nanoTime();
        } else if (ev.isLost() && start != null) {
          terms.add(new long[] {start, ev.nanoTime()});
          start = null;
        }
      }
      assertTrue(start == null, "a term never ended: " + log);
    }
    terms.sort((a, b) -> Long.signum(a[0] - b[0]));
    for (int i = 1; i < terms.size(); i++) {
      long previousEnd = terms.get(i - 1)[1];
      long start = terms.get(i)[0];
      assertTrue(previousEnd - start < 0,
          "term " + i + " began " + (previousEnd - start) / 1000 + " µs before the previous ended");
    }
  }

  @Override
  public void close() {
    // In parallel: each close waits for its lease to be released.
    all.parallelStream().forEach(LeaderElector::close);
  }
}
