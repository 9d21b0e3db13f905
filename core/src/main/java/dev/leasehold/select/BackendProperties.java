package dev.leasehold.select;

import dev.leasehold.Durations;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * BackendProperties reads {@code leasehold.*} properties (or their {@code LEASEHOLD_*}
 * environment names) into a {@link Backends.Builder}; every error names the property (or
 * variable) and its value, never a password's.
 *
 * <p>Stateless and thread-safe.
 */
final class BackendProperties {

  /** The builder field each property sets, for naming the property in the builder's errors. */
  private static final Map<String, String> FIELDS = new LinkedHashMap<>();

  static {
    FIELDS.put("leasehold.backends", "backends");
    FIELDS.put("leasehold.fallback", "fallback");
    FIELDS.put("leasehold.fallback.after", "fallbackAfter");
    FIELDS.put("leasehold.fallback.return-after", "returnAfter");
    FIELDS.put("leasehold.key", "electionKey");
    FIELDS.put("leasehold.candidate-id", "candidateId");
    FIELDS.put("leasehold.ttl", "leaseTtl");
    FIELDS.put("leasehold.safety-margin", "safetyMargin");
    FIELDS.put("leasehold.max-drift-rate", "maxDriftRate");
    FIELDS.put("leasehold.poll-interval", "pollInterval");
    FIELDS.put("leasehold.rpc-timeout", "rpcTimeout");
    FIELDS.put("leasehold.retry-backoff.initial", "retryBackoffInitial");
    FIELDS.put("leasehold.retry-backoff.max", "retryBackoffMax");
    FIELDS.put("leasehold.resign-holdoff", "resignHoldoff");
    FIELDS.put("leasehold.standby-lease", "standbyLease");
    FIELDS.put("leasehold.close-on-shutdown", "closeOnShutdown");
    FIELDS.put("leasehold.etcd.endpoints", "endpoints");
    FIELDS.put("leasehold.etcd.user", "credentials user");
    FIELDS.put("leasehold.etcd.password", "credentials password");
    FIELDS.put("leasehold.etcd.tls.ca", "tls");
    FIELDS.put("leasehold.etcd.tls.authority", "tlsAuthority");
    FIELDS.put("leasehold.jdbc.url", "jdbcUrl");
    FIELDS.put("leasehold.jdbc.user", "jdbc user");
    FIELDS.put("leasehold.jdbc.password", "jdbc password");
    FIELDS.put("leasehold.jdbc.table", "table");
    FIELDS.put("leasehold.jdbc.create-table", "createTable");
    FIELDS.put("leasehold.jdbc.allow-relaxed-durability", "allowRelaxedDurability");
  }

  private BackendProperties() {}

  /** names lists every property name, in the README's order. */
  static List<String> names() {
    return List.copyOf(FIELDS.keySet());
  }

  /** envName is a property's environment variable: LEASEHOLD_FALLBACK_RETURN_AFTER. */
  static String envName(String property) {
    return property.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  /** apply sets {@code b} from the {@code leasehold.*} entries (or LEASEHOLD_* ones) of {@code in}. */
  static void apply(Backends.Builder b, Map<String, String> in, boolean environment) {
    Map<String, String> byEnv = new LinkedHashMap<>();
    for (String p : FIELDS.keySet()) {
      byEnv.put(envName(p), p);
    }
    // Sorted, so the first error does not depend on the map's order.
    Map<String, String> props = new TreeMap<>();
    Map<String, String> shown = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : new TreeMap<>(in).entrySet()) {
      String key = e.getKey();
      String property;
      if (environment) {
        if (!key.startsWith("LEASEHOLD_")) {
          continue;
        }
        property = byEnv.get(key);
        if (property == null) {
          continue; // not ours: the CLI hands its child LEASEHOLD_FENCING_TOKEN and others
        }
      } else {
        if (!key.startsWith("leasehold.")) {
          continue;
        }
        property = FIELDS.containsKey(key) ? key : null;
      }
      if (property == null) {
        throw new IllegalArgumentException(key + " is not a Leasehold property (known: "
            + String.join(", ", names()) + "), but was set to \"" + e.getValue() + "\"");
      }
      props.put(property, e.getValue());
      shown.put(property, key);
    }
    Setter set = new Setter(b, props, shown);
    set.all();
  }

  /** named prefixes a builder error with the property and value its field came from. */
  static IllegalArgumentException named(IllegalArgumentException e, Map<String, String> origins) {
    String m = String.valueOf(e.getMessage());
    String best = null;
    for (String field : origins.keySet()) {
      boolean names = m.startsWith(field + " ") || m.startsWith(field + "[");
      if (names && (best == null || field.length() > best.length())) {
        best = field;
      }
    }
    if (best == null) {
      return e;
    }
    return new IllegalArgumentException(origins.get(best) + ": " + m, e);
  }

  /** Setter applies one map of properties; {@code shown} gives each its name as the user spelt it. */
  private record Setter(Backends.Builder b, Map<String, String> p, Map<String, String> shown) {
    void all() {
      for (String property : p.keySet()) {
        String value = p.get(property);
        boolean secret = property.endsWith(".password");
        if (value == null || value.isBlank()) {
          throw new IllegalArgumentException(shown.get(property) + " must not be empty, but was \""
              + (value == null ? "" : value) + "\"");
        }
        String field = FIELDS.get(property);
        String origin = shown.get(property) + "=" + (secret ? "(hidden)" : "\"" + value + "\"");
        b.origins.put(field, origin);
        if (field.startsWith("credentials ")) {
          b.origins.putIfAbsent("credentials", origin); // etcd's errors name "credentials ..." as one
        }
      }
      text("leasehold.backends", v -> b.backends(backends(v)));
      text("leasehold.fallback", v -> b.fallback(policy(v)));
      duration("leasehold.fallback.after", b::fallbackAfter);
      duration("leasehold.fallback.return-after", b::returnAfter);
      text("leasehold.key", b::electionKey);
      text("leasehold.candidate-id", b::candidateId);
      duration("leasehold.ttl", b::leaseTtl);
      duration("leasehold.safety-margin", b::safetyMargin);
      text("leasehold.max-drift-rate", v -> b.maxDriftRate(number("leasehold.max-drift-rate", v)));
      duration("leasehold.poll-interval", b::pollInterval);
      duration("leasehold.rpc-timeout", b::rpcTimeout);
      if (p.containsKey("leasehold.retry-backoff.initial") || p.containsKey("leasehold.retry-backoff.max")) {
        Duration initial = p.containsKey("leasehold.retry-backoff.initial")
            ? toDuration("leasehold.retry-backoff.initial") : Duration.ofMillis(100);
        Duration max = p.containsKey("leasehold.retry-backoff.max")
            ? toDuration("leasehold.retry-backoff.max") : Duration.ofSeconds(1);
        b.retryBackoff(initial, max);
      }
      duration("leasehold.resign-holdoff", b::resignHoldoff);
      flag("leasehold.standby-lease", b::standbyLease);
      flag("leasehold.close-on-shutdown", b::closeOnShutdown);
      etcd();
      jdbc();
    }

    private void etcd() {
      if (p.keySet().stream().noneMatch(k -> k.startsWith("leasehold.etcd."))) {
        return;
      }
      var etcd = b.etcdSettings();
      text("leasehold.etcd.endpoints", v -> etcd.endpoints(
          Arrays.stream(v.split(",", -1)).map(String::strip).toList()));
      if (p.containsKey("leasehold.etcd.user") || p.containsKey("leasehold.etcd.password")) {
        String password = p.get("leasehold.etcd.password");
        etcd.credentials(p.get("leasehold.etcd.user"), password == null ? null : password.toCharArray());
      }
      text("leasehold.etcd.tls.ca", v -> etcd.tls(Path.of(v)));
      text("leasehold.etcd.tls.authority", etcd::tlsAuthority);
    }

    private void jdbc() {
      if (p.keySet().stream().noneMatch(k -> k.startsWith("leasehold.jdbc."))) {
        return;
      }
      var jdbc = b.jdbcSettings();
      String url = p.get("leasehold.jdbc.url");
      if (url != null) {
        try {
          DriverManager.getDriver(url);
        } catch (SQLException e) {
          throw new IllegalArgumentException(shown.get("leasehold.jdbc.url") + " must be a URL a JDBC driver"
              + " on the class path accepts (add MariaDB Connector/J or MySQL Connector/J), but was \""
              + url + "\" (" + e.getMessage() + ")");
        }
      }
      jdbc.jdbcUrl(url, p.get("leasehold.jdbc.user"), p.get("leasehold.jdbc.password"));
      text("leasehold.jdbc.table", jdbc::table);
      flag("leasehold.jdbc.create-table", jdbc::createTable);
      flag("leasehold.jdbc.allow-relaxed-durability", jdbc::allowRelaxedDurability);
    }

    private void text(String property, java.util.function.Consumer<String> to) {
      String v = p.get(property);
      if (v != null) {
        to.accept(v.strip());
      }
    }

    private void duration(String property, java.util.function.Consumer<Duration> to) {
      if (p.containsKey(property)) {
        to.accept(toDuration(property));
      }
    }

    private void flag(String property, java.util.function.Consumer<Boolean> to) {
      String v = p.get(property);
      if (v == null) {
        return;
      }
      String s = v.strip().toLowerCase(Locale.ROOT);
      if (!s.equals("true") && !s.equals("false")) {
        throw new IllegalArgumentException(
            shown.get(property) + " must be true or false, but was \"" + v + "\"");
      }
      to.accept(Boolean.parseBoolean(s));
    }

    private Duration toDuration(String property) {
      return Durations.parse(shown.get(property), p.get(property));
    }

    private double number(String property, String v) {
      try {
        return Double.parseDouble(v);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            shown.get(property) + " must be a number such as 0.01, but was \"" + v + "\"");
      }
    }

    private List<Backend> backends(String v) {
      List<Backend> out = new ArrayList<>();
      for (String one : v.split(",", -1)) {
        try {
          out.add(Backend.parse(one));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(shown.get("leasehold.backends")
              + " must be a comma-separated list of etcd, jdbc, local, but was \"" + v + "\" (\""
              + one.strip() + "\" is none of them)");
        }
      }
      return out;
    }

    private FallbackPolicy policy(String v) {
      try {
        return FallbackPolicy.parse(v);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(shown.get("leasehold.fallback")
            + " must be one of fail-closed, fall-back, fall-back-and-return, but was \"" + v + "\"");
      }
    }
  }
}
