package dev.leasehold.cli;

import dev.leasehold.Durations;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Seconds converts a duration option with core's one reader ({@link Durations#parse}): a bare
 * number is seconds, decimals allowed ("5", "0.5"), and "5s", "500ms" or "PT5S" mean what they
 * say; to the millisecond. {@link Durations#seconds} prints durations back in seconds.
 *
 * <p>Stateless and thread-safe.
 */
final class Seconds implements ITypeConverter<Duration> {
  @Override
  public Duration convert(String value) {
    Duration d;
    try {
      d = Durations.parse("", value);
    } catch (IllegalArgumentException e) {
      throw new TypeConversionException(
          "'" + value + "' is not a number of seconds or a duration such as 5, 0.5, 5s or 500ms");
    }
    if (d.toNanos() % 1_000_000 != 0) {
      throw new TypeConversionException("'" + value + "' has more than millisecond precision");
    }
    return d;
  }
}
