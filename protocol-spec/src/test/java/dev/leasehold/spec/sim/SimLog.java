package dev.leasehold.spec.sim;

import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * SimLog is this module's SLF4J provider, so the simulation hears what the runtime logs: the
 * runtime catches what its callbacks and its machine throw and logs it at ERROR (which the
 * simulation reports as {@code NO_EXCEPTION}); its WARN lines are counted. The running
 * simulation installs a {@link Sink} on its thread; without one (other tests, other threads)
 * nothing is logged. INFO and below are always off, so the simulation's hot path formats
 * nothing.
 *
 * <p>Thread-safe: the sink is per thread.
 */
public final class SimLog implements SLF4JServiceProvider {
  /** Sink receives WARN and ERROR lines logged on the thread it was installed on. */
  public interface Sink {
    void log(Level level, String logger, String message, Throwable t);
  }

  private static final ThreadLocal<Sink> SINK = new ThreadLocal<>();
  private final ILoggerFactory loggers = SimLogger::new;
  private final IMarkerFactory markers = new BasicMarkerFactory();
  private final MDCAdapter mdc = new NOPMDCAdapter();

  /** SimLog is created by SLF4J's service loader. */
  public SimLog() {}

  /** install routes this thread's WARN and ERROR lines to {@code sink} (null: nowhere). */
  public static void install(Sink sink) {
    if (sink == null) {
      SINK.remove();
    } else {
      SINK.set(sink);
    }
  }

  @Override
  public ILoggerFactory getLoggerFactory() {
    return loggers;
  }

  @Override
  public IMarkerFactory getMarkerFactory() {
    return markers;
  }

  @Override
  public MDCAdapter getMDCAdapter() {
    return mdc;
  }

  @Override
  public String getRequestedApiVersion() {
    return "2.0.99";
  }

  @Override
  public void initialize() {}

  /** SimLogger hands WARN and ERROR to the thread's sink. */
  private static final class SimLogger extends LegacyAbstractLogger {
    private static final long serialVersionUID = 1L;

    SimLogger(String name) {
      this.name = name;
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
      return SINK.get() != null;
    }

    @Override
    public boolean isErrorEnabled() {
      return SINK.get() != null;
    }

    @Override
    protected String getFullyQualifiedCallerName() {
      return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(
        Level level, Marker marker, String pattern, Object[] args, Throwable t) {
      Sink sink = SINK.get();
      if (sink != null) {
        sink.log(level, name, MessageFormatter.basicArrayFormat(pattern, args), t);
      }
    }
  }
}
