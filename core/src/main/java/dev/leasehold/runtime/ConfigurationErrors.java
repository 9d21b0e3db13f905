package dev.leasehold.runtime;

/**
 * ConfigurationErrors marks the failure reasons that name a configuration error: the store
 * answered and refused this elector (a wrong password, no permission on the election key, a
 * server certificate it does not trust), so retrying sooner cannot help and only the operator
 * can. A store adapter names such a failure with {@link #named}; the machine reports it at once,
 * as such, and retries it at the maximum backoff (PROTOCOL.md §9).
 *
 * <p>The mark is a prefix of the reason, so inputs, events and log lines carry it as they are
 * and no record changes shape. Stateless and thread-safe.
 */
public final class ConfigurationErrors {
  /** PREFIX starts every reason that names a configuration error. */
  public static final String PREFIX = "configuration error: ";

  private ConfigurationErrors() {}

  /**
   * named marks {@code reason} as a configuration error.
   *
   * @param reason the store's refusal, for example {@code permission denied}
   * @return {@code reason} with the prefix that marks it as a configuration error
   */
  public static String named(String reason) {
    return reason.startsWith(PREFIX) ? reason : PREFIX + reason;
  }

  /**
   * is tells whether {@code reason} (null for none) names a configuration error.
   *
   * @param reason a reported reason, or null
   * @return true when {@code reason} carries the configuration-error prefix
   */
  public static boolean is(String reason) {
    return reason != null && reason.startsWith(PREFIX);
  }
}
