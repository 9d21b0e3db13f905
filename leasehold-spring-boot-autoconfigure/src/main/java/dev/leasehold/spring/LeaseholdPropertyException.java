package dev.leasehold.spring;

import dev.leasehold.select.PropertyException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * LeaseholdPropertyException reports a {@code leasehold.*} property that core's builder (or
 * the starter) refused, with the property's name; {@link LeaseholdFailureAnalyzer} turns it
 * into Boot's start-up failure report.
 *
 * <p>Immutable and thread-safe.
 */
public final class LeaseholdPropertyException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private static final Pattern MISSING_SETTINGS =
      Pattern.compile(".*backends names (etcd|jdbc), so .*", Pattern.DOTALL);

  /** The name of the refused property. */
  private final String property;

  /**
   * LeaseholdPropertyException reports {@code property} with a message that starts with its name.
   *
   * @param property the refused property's name, such as {@code leasehold.ttl}
   * @param message the message, starting with the property's name
   * @param cause core's refusal, or null
   */
  public LeaseholdPropertyException(String property, String message, Throwable cause) {
    super(message, cause);
    this.property = property;
  }

  /**
   * property is the name of the refused property, such as {@code leasehold.ttl}.
   *
   * @return the property's name
   */
  public String property() {
    return property;
  }

  /**
   * fromCore names the property of core's refusal: core names it ({@link PropertyException}),
   * as given with its value ({@code leasehold.ttl="200ms": leaseTtl must be >= 1s, but was
   * 200ms}) or, left unset, in its field's place ({@code leasehold.key must be a non-blank
   * string, but was null}); a listed backend without settings names the property that gives
   * them.
   */
  static LeaseholdPropertyException fromCore(IllegalArgumentException e) {
    String message = String.valueOf(e.getMessage());
    Matcher missing = MISSING_SETTINGS.matcher(message);
    if (missing.matches()) {
      String property = missing.group(1).equals("etcd") ? "leasehold.etcd.endpoints" : "leasehold.jdbc.url";
      return new LeaseholdPropertyException(property, property + " must be set, since leasehold.backends names "
          + missing.group(1) + ", but was not", e);
    }
    if (e instanceof PropertyException p) {
      return new LeaseholdPropertyException(p.property(), message, e);
    }
    return new LeaseholdPropertyException("leasehold", "leasehold: " + message, e);
  }
}
