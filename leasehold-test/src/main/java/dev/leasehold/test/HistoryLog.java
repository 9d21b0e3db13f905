package dev.leasehold.test;

import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/**
 * HistoryLog is a simulated elector's log: its warnings and errors (store unavailable, retries)
 * go to the schedule's {@link History}, where a failure shows them in order with the rest,
 * instead of thousands of lines in the test's output for schedules that pass.
 *
 * <p>Not thread-safe: the simulation's one thread logs to it.
 */
final class HistoryLog extends LegacyAbstractLogger {
  private static final long serialVersionUID = 1L;

  private final transient History history;
  private final String who;
  private final String prefix;

  HistoryLog(History history, String who, String electorName) {
    this.history = history;
    this.who = who;
    this.prefix = electorName + ": ";
    this.name = "leasehold.simulation." + who;
  }

  @Override
  public boolean isTraceEnabled() {
    return false;
  }

  @Override
  public boolean isDebugEnabled() {
    return false;
  }

  @Override
  public boolean isInfoEnabled() {
    return false;
  }

  @Override
  public boolean isWarnEnabled() {
    return true;
  }

  @Override
  public boolean isErrorEnabled() {
    return true;
  }

  @Override
  protected String getFullyQualifiedCallerName() {
    return null;
  }

  @Override
  protected void handleNormalizedLoggingCall(
      Level level, Marker marker, String pattern, Object[] arguments, Throwable thrown) {
    String message = MessageFormatter.basicArrayFormat(pattern, arguments);
    if (message.startsWith(prefix)) {
      message = message.substring(prefix.length());
    }
    history.add(who, level + " " + message + (thrown == null ? "" : " (" + thrown + ")"));
  }
}
