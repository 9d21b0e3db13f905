package dev.leasehold.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import dev.leasehold.runtime.ConfigurationErrors;
import org.slf4j.Marker;

/**
 * ConfigurationErrorFilter drops the library's log lines that carry a configuration error (a
 * reason that starts with {@code "configuration error: "}): the store and the elector each log
 * one, and both advise the builder's names. {@code run} logs each such error once itself, with
 * this command's option names ({@code --create-table}, not {@code createTable(true)}), and exits
 * 78 if it came before the term. Installed by the command's logback.xml.
 *
 * <p>Stateless and thread-safe.
 */
public final class ConfigurationErrorFilter extends TurboFilter {
  /** ConfigurationErrorFilter is the filter logback instantiates. */
  public ConfigurationErrorFilter() {}

  @Override
  public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
    if (params == null || !logger.getName().startsWith("dev.leasehold.")) {
      return FilterReply.NEUTRAL;
    }
    for (Object p : params) {
      if (p instanceof String s && s.contains(ConfigurationErrors.PREFIX)) {
        return FilterReply.DENY;
      }
    }
    return FilterReply.NEUTRAL;
  }
}
