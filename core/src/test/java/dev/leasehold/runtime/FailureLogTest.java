package dev.leasehold.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.leasehold.ElectorState;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Optional;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.AbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/** An outage logs the reason it began with, then each new reason once, never one line per retry. */
class FailureLogTest {
  /** Lines records what is logged through it; the module path keeps logback's classes out of reach. */
  static final class Lines extends AbstractLogger {
    final List<String> list = new ArrayList<>();
    final List<Level> levels = new ArrayList<>();

    @Override
    protected String getFullyQualifiedCallerName() {
      return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(
        Level level, Marker marker, String pattern, Object[] args, Throwable t) {
      list.add(MessageFormatter.basicArrayFormat(pattern, args));
      levels.add(level);
    }

    @Override public boolean isTraceEnabled() { return true; }
    @Override public boolean isTraceEnabled(Marker m) { return true; }
    @Override public boolean isDebugEnabled() { return true; }
    @Override public boolean isDebugEnabled(Marker m) { return true; }
    @Override public boolean isInfoEnabled() { return true; }
    @Override public boolean isInfoEnabled(Marker m) { return true; }
    @Override public boolean isWarnEnabled() { return true; }
    @Override public boolean isWarnEnabled(Marker m) { return true; }
    @Override public boolean isErrorEnabled() { return true; }
    @Override public boolean isErrorEnabled(Marker m) { return true; }
  }

  @Test
  void eachDistinctReasonOfAnOutageIsLoggedOnceAndAtMostFour() {
    Lines lines = new Lines();
    FailureLog f = new FailureLog(lines, "e");

    f.failed("timed out after 1000 ms");
    assertEquals("timed out after 1000 ms", f.outageBegan());
    for (int retry = 0; retry < 3; retry++) {
      f.failed("timed out after 1000 ms");
      f.failed("authentication failed: etcd refused user 'x'");
    }
    for (int i = 0; i < 10; i++) {
      f.failed("unreachable: connection refused: /10.0.0." + i + ":2379");
    }
    assertEquals(
        List.of(
            "e: store still unavailable: authentication failed: etcd refused user 'x'",
            "e: store still unavailable: unreachable: connection refused: /10.0.0.0:2379",
            "e: store still unavailable: unreachable: connection refused: /10.0.0.1:2379"),
        lines.list);

    f.recovered();
    f.failed("no leader: etcd has no raft leader");
    assertEquals(3, lines.list.size(), "nothing between outages");
    assertEquals("no leader: etcd has no raft leader", f.outageBegan());
  }

  @Test
  void aConfigurationErrorIsOneErrorLineNamingItAsSuch() {
    Lines lines = new Lines();
    FailureLog f = new FailureLog(lines, "e");
    String refused = "configuration error: permission denied: user 'r' may not write /k";
    f.failed(refused);
    LeadershipEvent down = new LeadershipEvent(ElectorState.FOLLOWER, ElectorState.FOLLOWER,
        Cause.STORE_UNAVAILABLE, Optional.empty(), Instant.now(), 0, Optional.empty(),
        Optional.of(f.outageBegan()));
    f.logEvent(down);
    for (int retry = 0; retry < 10; retry++) {
      f.failed(refused);
    }
    assertEquals(List.of("e: store unavailable, refusing this elector; retrying at the maximum"
        + " backoff until the configuration is fixed (role FOLLOWER): " + refused), lines.list);
    assertEquals(List.of(Level.ERROR), lines.levels);
  }
}
