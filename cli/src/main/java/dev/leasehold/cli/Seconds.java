package dev.leasehold.cli;

import java.math.BigDecimal;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Seconds converts an option value in seconds, decimals allowed ("5", "0.5"), to a Duration
 * with millisecond precision, and prints durations back the same way.
 *
 * <p>Stateless and thread-safe.
 */
final class Seconds implements ITypeConverter<Duration> {
  @Override
  public Duration convert(String value) {
    try {
      BigDecimal s = new BigDecimal(value.trim());
      if (s.scale() > 3) {
        throw new TypeConversionException("'" + value + "' has more than millisecond precision");
      }
      return Duration.ofMillis(s.movePointRight(3).longValueExact());
    } catch (NumberFormatException | ArithmeticException e) {
      throw new TypeConversionException("'" + value + "' is not a number of seconds such as 5 or 0.5");
    }
  }

  /** human prints a duration in seconds with up to three decimals: "2.417s", "0.2s", "5s". */
  static String human(Duration d) {
    return BigDecimal.valueOf(d.toMillis(), 3).stripTrailingZeros().toPlainString() + "s";
  }
}
