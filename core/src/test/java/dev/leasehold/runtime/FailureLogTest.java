package dev.leasehold.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
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

    @Override
    protected String getFullyQualifiedCallerName() {
      return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(
        Level level, Marker marker, String pattern, Object[] args, Throwable t) {
      list.add(MessageFormatter.basicArrayFormat(pattern, args));
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
}
