package dev.leasehold;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations reads and prints durations the way Leasehold's properties, command-line options and
 * error messages spell them: {@code 5s}, {@code 500ms}, {@code 1.5s}, {@code 2m}, {@code 1h},
 * ISO-8601 ({@code PT5S}), and a bare number, which means seconds everywhere ({@code 5},
 * {@code 0.5}).
 *
 * <p>Stateless and thread-safe.
 */
public final class Durations {
  private static final Pattern AMOUNT = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)?");
  private static final BigDecimal NANOS_PER_SECOND = BigDecimal.valueOf(1_000_000_000L);

  private Durations() {}

  /**
   * parse reads a duration: a decimal number with an optional unit ({@code ms}, {@code s},
   * {@code m}, {@code h}; none means seconds), or ISO-8601; surrounding blanks are ignored, and
   * the value is kept to the nanosecond.
   *
   * @param name how the caller names the value in the error ({@code leasehold.ttl}, {@code --ttl})
   * @param text what the user wrote, for example {@code 5}, {@code 1.5s}, {@code 200ms} or {@code
   *     PT5S}; null is rejected like any other bad text
   * @return the duration, exact to the nanosecond
   * @throws IllegalArgumentException naming {@code name} and the text, for text that is none of these
   */
  public static Duration parse(String name, String text) {
    String v = text == null ? "" : text.strip();
    Matcher m = AMOUNT.matcher(v);
    try {
      if (m.matches()) {
        BigDecimal unitNanos = switch (m.group(2) == null ? "s" : m.group(2)) {
          case "ms" -> BigDecimal.valueOf(1_000_000L);
          case "s" -> NANOS_PER_SECOND;
          case "m" -> BigDecimal.valueOf(60_000_000_000L);
          default -> BigDecimal.valueOf(3_600_000_000_000L);
        };
        return Duration.ofNanos(new BigDecimal(m.group(1)).multiply(unitNanos).longValueExact());
      }
      return Duration.parse(v);
    } catch (DateTimeParseException | ArithmeticException e) {
      throw new IllegalArgumentException(name
          + " must be a duration such as 5s, 500ms, 1.5s, 2m or PT5S, but was \"" + text + "\"");
    }
  }

  /**
   * human prints a duration as the error messages do: milliseconds below a second ({@code 200ms},
   * {@code 333.333333ms} for a fraction of one), seconds from there ({@code 5s}, {@code 1.5s},
   * {@code 1.666s}); {@code null} as "null".
   *
   * @param d the duration to print; may be null
   * @return the text, for example {@code 200ms} or {@code 1.666s}; {@code "null"} for null
   */
  public static String human(Duration d) {
    if (d == null) {
      return "null";
    }
    if (d.abs().compareTo(Duration.ofDays(1_000_000)) > 0) {
      return d.getSeconds() + "s";
    }
    long ms = d.toMillis();
    if (d.isNegative() || ms < 1000) {
      if (d.toNanos() % 1_000_000 == 0) {
        return ms + "ms";
      }
      // e.g. TTL 1 s / 3: "333.333333ms", not "333333333ns".
      return BigDecimal.valueOf(d.toNanos(), 6).stripTrailingZeros().toPlainString() + "ms";
    }
    return ms % 1000 == 0 ? (ms / 1000) + "s" : (ms / 1000.0) + "s";
  }

  /**
   * seconds prints a duration in seconds to the millisecond ({@code 0.2s}, {@code 2.417s},
   * {@code 5s}): the unit the {@code leasehold} command's options are given in.
   *
   * @param d the duration to print, not null
   * @return the seconds with up to three decimals and an {@code s}, for example {@code 2.417s}
   */
  public static String seconds(Duration d) {
    return BigDecimal.valueOf(d.toMillis(), 3).stripTrailingZeros().toPlainString() + "s";
  }

  /**
   * exact prints a duration of a second or more to the nanosecond ({@code 1.5005s}), for a value
   * refused for a fraction that {@link #human} would round away; shorter ones as {@link #human}.
   */
  static String exact(Duration d) {
    if (d.compareTo(Duration.ofSeconds(1)) < 0) {
      return human(d);
    }
    return BigDecimal.valueOf(d.getSeconds()).add(BigDecimal.valueOf(d.getNano(), 9))
        .stripTrailingZeros().toPlainString() + "s";
  }
}
