package dev.leasehold.spring;

import java.util.Map;

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
          Map.entry("electionKey", "leasehold.key"),
          Map.entry("candidateId", "leasehold.candidate-id"),
          Map.entry("leaseTtl", "leasehold.ttl"),
          Map.entry("safetyMargin", "leasehold.safety-margin"),
          Map.entry("maxDriftRate", "leasehold.max-drift-rate"),
          Map.entry("pollInterval", "leasehold.poll-interval"),
          Map.entry("rpcTimeout", "leasehold.rpc-timeout"),
          Map.entry("retryBackoffInitial", "leasehold.retry-backoff-initial"),
          Map.entry("retryBackoffMax", "leasehold.retry-backoff-max"),
          Map.entry("resignHoldoff", "leasehold.resign-holdoff"),
          Map.entry("endpoints", "leasehold.etcd.endpoints"),
          Map.entry("tls caCertificate", "leasehold.etcd.tls.ca-certificate"),
          Map.entry("tlsClientCertificate certificateChain", "leasehold.etcd.tls.client-certificate"),
          Map.entry("tlsClientCertificate privateKey", "leasehold.etcd.tls.client-key"),
          Map.entry("tlsAuthority", "leasehold.etcd.tls.authority"),
          Map.entry("tls", "leasehold.etcd.tls"),
          Map.entry("credentials user", "leasehold.etcd.user"),
          Map.entry("credentials password", "leasehold.etcd.password"),
          Map.entry("jdbcUrl", "leasehold.jdbc.url"),
          Map.entry("table", "leasehold.jdbc.table"));

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
   * fromCore renames the builder field that starts core's message to its property:
   * "leaseTtl must be >= 1s, but was 200ms" becomes "leasehold.ttl must be >= 1s, but was 200ms".
   */
  static LeaseholdPropertyException fromCore(IllegalArgumentException e) {
    String message = String.valueOf(e.getMessage());
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
