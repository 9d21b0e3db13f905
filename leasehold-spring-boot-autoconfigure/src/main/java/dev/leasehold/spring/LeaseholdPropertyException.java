package dev.leasehold.spring;

import java.util.Map;
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

  // Core's builders name their fields first ("leaseTtl must be >= 1s, but was 200ms"); longer
  // names come first so that "tls caCertificate" wins over "tls".
  private static final Map<String, String> CORE_FIELDS =
      Map.ofEntries(
          Map.entry("backends", "leasehold.backends"),
          Map.entry("fallback", "leasehold.fallback"),
          Map.entry("fallbackAfter", "leasehold.fallback.after"),
          Map.entry("returnAfter", "leasehold.fallback.return-after"),
          Map.entry("electionKey", "leasehold.key"),
          Map.entry("candidateId", "leasehold.candidate-id"),
          Map.entry("leaseTtl", "leasehold.ttl"),
          Map.entry("safetyMargin", "leasehold.safety-margin"),
          Map.entry("maxDriftRate", "leasehold.max-drift-rate"),
          Map.entry("pollInterval", "leasehold.poll-interval"),
          Map.entry("rpcTimeout", "leasehold.rpc-timeout"),
          Map.entry("retryBackoffInitial", "leasehold.retry-backoff.initial"),
          Map.entry("retryBackoffMax", "leasehold.retry-backoff.max"),
          Map.entry("resignHoldoff", "leasehold.resign-holdoff"),
          Map.entry("endpoints", "leasehold.etcd.endpoints"),
          Map.entry("tls caCertificate", "leasehold.etcd.tls.ca"),
          Map.entry("tlsClientCertificate certificateChain", "leasehold.etcd.tls.client-certificate"),
          Map.entry("tlsClientCertificate privateKey", "leasehold.etcd.tls.client-key"),
          Map.entry("tlsAuthority", "leasehold.etcd.tls.authority"),
          Map.entry("tls", "leasehold.etcd.tls.ca"),
          Map.entry("credentials user", "leasehold.etcd.user"),
          Map.entry("credentials password", "leasehold.etcd.password"),
          Map.entry("jdbcUrl", "leasehold.jdbc.url"),
          Map.entry("table", "leasehold.jdbc.table"));
  private static final Pattern NAMED =
      Pattern.compile("(leasehold\\.[a-z0-9.-]+(?:\\[\\d+])?)[=: ].*", Pattern.DOTALL);
  private static final Pattern MISSING_SETTINGS =
      Pattern.compile(".*backends names (etcd|jdbc), so .*", Pattern.DOTALL);

  private final String property;

  /** LeaseholdPropertyException reports {@code property} with a message that starts with its name. */
  public LeaseholdPropertyException(String property, String message, Throwable cause) {
    super(message, cause);
    this.property = property;
  }

  /** property is the name of the refused property, such as {@code leasehold.ttl}. */
  public String property() {
    return property;
  }

  /**
   * fromCore names the property of core's message: core's property errors already start with
   * it ({@code leasehold.ttl="200ms": leaseTtl must be >= 1s, but was 200ms}); a builder field
   * that starts the message is renamed to its property ("electionKey must be a non-blank
   * string, but was null" becomes "leasehold.key must be a non-blank string, but was null").
   */
  static LeaseholdPropertyException fromCore(IllegalArgumentException e) {
    String message = String.valueOf(e.getMessage());
    Matcher missing = MISSING_SETTINGS.matcher(message);
    if (missing.matches()) {
      String property = missing.group(1).equals("etcd") ? "leasehold.etcd.endpoints" : "leasehold.jdbc.url";
      return new LeaseholdPropertyException(property, property + " must be set, since leasehold.backends names "
          + missing.group(1) + ", but was not", e);
    }
    // Core's properties name themselves: leasehold.ttl="200ms": leaseTtl must be >= 1s, but was 200ms.
    Matcher named = NAMED.matcher(message);
    if (named.matches()) {
      return new LeaseholdPropertyException(named.group(1), message, e);
    }
    String best = null;
    for (String field : CORE_FIELDS.keySet()) {
      if (message.startsWith(field)
          && (message.length() == field.length() || " [".indexOf(message.charAt(field.length())) >= 0)
          && (best == null || field.length() > best.length())) {
        best = field;
      }
    }
    if (best == null) {
      return new LeaseholdPropertyException("leasehold", "leasehold: " + message, e);
    }
    String property = CORE_FIELDS.get(best);
    String rest = message.substring(best.length());
    // endpoints[1] names the element: leasehold.etcd.endpoints[1].
    String index = rest.startsWith("[") ? rest.substring(0, rest.indexOf(']') + 1) : "";
    return new LeaseholdPropertyException(property + index, property + rest, e);
  }
}
