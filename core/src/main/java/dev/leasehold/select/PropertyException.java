package dev.leasehold.select;

/**
 * PropertyException is a {@code leasehold.*} property (or its {@code LEASEHOLD_*} variable)
 * that {@link Backends#fromProperties} or {@link Backends#fromEnvironment} refused, or whose
 * value a builder refused: {@link #property()} names it as {@link Backends#propertyNames()} do,
 * and the message names it as the caller spelt it, with the value when one was given ({@code
 * leasehold.ttl="200ms": leaseTtl must be >= 1s, but was 200ms}; a password never shows). A
 * caller that names its settings its own way (a command-line option) puts its name before
 * {@link #problem()}.
 *
 * <p>Immutable and thread-safe.
 */
public final class PropertyException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** property is the refused property's name, serialized with the exception. */
  private final String property;

  /** problem is the message's text after the name, serialized with the exception. */
  private final String problem;

  PropertyException(String property, String problem, String message, Throwable cause) {
    super(message, cause);
    this.property = property;
    this.problem = problem;
  }

  /**
   * property is the refused property's name, such as {@code leasehold.ttl}, or the unknown
   * {@code leasehold.*} name as given.
   *
   * @return the property name, for example {@code leasehold.ttl}
   */
  public String property() {
    return property;
  }

  /**
   * problem is what is wrong, as the message says it after the name: {@code " must be >= 1s,
   * but was 200ms"}, or {@code "[1] must be a URL like ..."} for an item of a list.
   *
   * @return the problem, starting where the message's name ends
   */
  public String problem() {
    return problem;
  }
}
