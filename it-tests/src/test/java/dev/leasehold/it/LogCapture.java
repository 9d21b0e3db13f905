package dev.leasehold.it;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * LogCapture records what the electors' runtime logs (logger {@code dev.leasehold.runtime.ElectorRuntime}), so a test
 * can check that a refusal's reason reaches the log line an operator reads. Thread-safe: logback's ListAppender
 * synchronizes appends, and readers copy.
 */
final class LogCapture implements AutoCloseable {
  private final Logger logger;
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  LogCapture() {
    this("dev.leasehold.runtime.ElectorRuntime");
  }

  /** LogCapture records another logger of the runtime, such as {@code dev.leasehold.select.FallbackRuntime}. */
  LogCapture(String loggerName) {
    logger = (Logger) LoggerFactory.getLogger(loggerName);
    appender.start();
    logger.addAppender(appender);
  }

  /** lines returns "LEVEL message" for every line that names {@code electorName} (candidateId@key). */
  List<String> lines(String electorName) {
    List<ILoggingEvent> copy;
    synchronized (appender) {
      copy = List.copyOf(appender.list);
    }
    return copy.stream()
        .filter(e -> e.getFormattedMessage().startsWith(electorName + ":"))
        .map(e -> e.getLevel() + " " + e.getFormattedMessage())
        .toList();
  }

  /** has tells whether a line of {@code electorName} contains {@code text}. */
  boolean has(String electorName, String text) {
    return lines(electorName).stream().anyMatch(l -> l.contains(text));
  }

  /** anyContains tells whether any line recorded, whoever logged it, contains {@code text}. */
  boolean anyContains(String text) {
    synchronized (appender) {
      return appender.list.stream().anyMatch(e -> e.getFormattedMessage().contains(text));
    }
  }

  @Override
  public void close() {
    logger.detachAppender(appender);
    appender.stop();
  }
}
