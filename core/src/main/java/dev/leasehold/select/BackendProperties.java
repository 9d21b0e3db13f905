package dev.leasehold.select;

import dev.leasehold.Durations;
import dev.leasehold.etcd.EtcdSettings;
import dev.leasehold.jdbc.JdbcSettings;
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
import java.util.function.Consumer;

/**
 * BackendProperties is the one vocabulary of {@code leasehold.*} properties (or their {@code
 * LEASEHOLD_*} environment names): it reads them into a {@link Backends.Builder}, and names the
 * property, as the caller spelt it, in every error, with its value, never a password's.
 *
 * <p>Immutable and thread-safe once made; made by {@link #apply}.
 */
final class BackendProperties {
  /**
   * Property is one name and the builder fields its errors start with ("tls caCertificate must
   * be ..."; the longest that fits wins), first the one the property sets.
   */
  private record Property(String name, List<String> fields) {}

  private static final List<Property> PROPERTIES = List.of(
      property("leasehold.backends", "backends"),
      property("leasehold.fallback", "fallback"),
      property("leasehold.fallback.after", "fallbackAfter"),
      property("leasehold.fallback.return-after", "returnAfter"),
      property("leasehold.key", "electionKey"),
      property("leasehold.candidate-id", "candidateId"),
      property("leasehold.ttl", "leaseTtl"),
      property("leasehold.safety-margin", "safetyMargin"),
      property("leasehold.max-drift-rate", "maxDriftRate"),
      property("leasehold.poll-interval", "pollInterval"),
      property("leasehold.rpc-timeout", "rpcTimeout"),
      property("leasehold.retry-backoff.initial", "retryBackoffInitial"),
      property("leasehold.retry-backoff.max", "retryBackoffMax"),
      property("leasehold.resign-holdoff", "resignHoldoff"),
      property("leasehold.standby-lease", "standbyLease"),
      property("leasehold.close-on-shutdown", "closeOnShutdown"),
      property("leasehold.priority", "priority"),
      property("leasehold.preempt-after", "preemptAfter"),
      property("leasehold.health-check-interval", "healthCheckInterval"),
      property("leasehold.health-check-threshold", "healthCheckThreshold"),
      property("leasehold.etcd.endpoints", "endpoints"),
      // etcd's credential errors name "credentials ..." as one, whichever half is wrong.
      property("leasehold.etcd.user", "credentials user", "credentials"),
      property("leasehold.etcd.password", "credentials password", "credentials"),
      property("leasehold.etcd.tls.ca", "tls caCertificate", "tls"),
      property("leasehold.etcd.tls.jvm-default-trust", "tlsJvmDefaultTrust", "tls"),
      property("leasehold.etcd.tls.client-certificate", "tlsClientCertificate certificateChain",
          "tlsClientCertificate"),
      property("leasehold.etcd.tls.client-key", "tlsClientCertificate privateKey"),
      property("leasehold.etcd.tls.authority", "tlsAuthority"),
      property("leasehold.jdbc.url", "jdbcUrl"),
      property("leasehold.jdbc.user", "jdbc user"),
      property("leasehold.jdbc.password", "jdbc password"),
      property("leasehold.jdbc.table", "table"),
      property("leasehold.jdbc.create-table", "createTable"),
      property("leasehold.jdbc.allow-relaxed-durability", "allowRelaxedDurability"));

  /** Given is a property as the caller gave it: its name as spelt, and its value as errors show it. */
  private record Given(String spelt, String shown) {}

  // Property -> how it was given, for the properties this builder came from.
  private final Map<String, Given> given;
  private final boolean environment;

  private BackendProperties(Map<String, Given> given, boolean environment) {
    this.given = given;
    this.environment = environment;
  }

  private static Property property(String name, String... fields) {
    return new Property(name, List.of(fields));
  }

  /** names lists every property name, in the order of docs/configuration.md's property table. */
  static List<String> names() {
    return PROPERTIES.stream().map(Property::name).toList();
  }

  /** envName is a property's environment variable: LEASEHOLD_FALLBACK_RETURN_AFTER. */
  static String envName(String property) {
    return property.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  /**
   * apply sets {@code b} from the {@code leasehold.*} entries (or LEASEHOLD_* ones) of {@code in},
   * and returns what names them in {@code b}'s errors.
   *
   * @throws PropertyException naming the property and the value of the first unreadable one
   */
  static BackendProperties apply(Backends.Builder b, Map<String, String> in, boolean environment) {
    Map<String, String> byEnv = new LinkedHashMap<>();
    for (String p : names()) {
      byEnv.put(envName(p), p);
    }
    // Sorted, so the first error does not depend on the map's order.
    Map<String, String> values = new TreeMap<>();
    Map<String, Given> given = new LinkedHashMap<>();
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
        property = byEnv.containsValue(key) ? key : null;
      }
      if (property == null) {
        String problem = " is not a Leasehold property (known: " + String.join(", ", names())
            + "), but was set to \"" + e.getValue() + "\"";
        throw new PropertyException(key, problem, key + problem, null);
      }
      values.put(property, e.getValue());
      String shown = property.endsWith(".password") ? "(hidden)" : "\"" + e.getValue() + "\"";
      given.put(property, new Given(key, shown));
    }
    BackendProperties read = new BackendProperties(given, environment);
    read.new Setter(b, values).all();
    return read;
  }

  /**
   * named turns a builder's error that starts with a field into a {@link PropertyException}
   * naming its property: with the property as given and its value in front when it was given
   * ({@code leasehold.ttl="200ms": leaseTtl must be >= 1s, but was 200ms}), else the property's
   * name in the field's place ({@code leasehold.key must be a non-blank string, but was null});
   * an error that names no property's field is returned as it is.
   */
  IllegalArgumentException named(IllegalArgumentException e) {
    if (e instanceof PropertyException) {
      return e;
    }
    String m = String.valueOf(e.getMessage());
    Property best = null;
    String bestField = null;
    boolean bestGiven = false;
    for (Property p : PROPERTIES) {
      boolean isGiven = given.containsKey(p.name());
      for (String f : p.fields()) {
        boolean fits = m.startsWith(f) && (m.length() == f.length() || " [".indexOf(m.charAt(f.length())) >= 0);
        boolean better = best == null || isGiven && !bestGiven
            || isGiven == bestGiven && f.length() > bestField.length();
        if (fits && better) {
          best = p;
          bestField = f;
          bestGiven = isGiven;
        }
      }
    }
    if (best == null) {
      return e;
    }
    String problem = m.substring(bestField.length());
    Given g = given.get(best.name());
    String message = g != null ? g.spelt() + "=" + g.shown() + ": " + m : spelt(best.name()) + problem;
    return new PropertyException(best.name(), problem, message, e);
  }

  private String spelt(String property) {
    Given g = given.get(property);
    return g != null ? g.spelt() : environment ? envName(property) : property;
  }

  /** Setter applies one map of properties, each already known. */
  private final class Setter {
    private final Backends.Builder b;
    private final Map<String, String> p;

    Setter(Backends.Builder b, Map<String, String> p) {
      this.b = b;
      this.p = p;
    }

    void all() {
      for (Map.Entry<String, String> e : p.entrySet()) {
        if (e.getValue() == null || e.getValue().isBlank()) {
          throw refused(e.getKey(), " must not be empty, but was \"" + (e.getValue() == null ? "" : e.getValue()) + "\"");
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
      text("leasehold.priority", v -> b.priority(integer("leasehold.priority", v)));
      duration("leasehold.preempt-after", b::preemptAfter);
      duration("leasehold.health-check-interval", b::healthCheckInterval);
      text("leasehold.health-check-threshold",
          v -> b.healthCheckThreshold(integer("leasehold.health-check-threshold", v)));
      etcd();
      jdbc();
    }

    private void etcd() {
      if (p.keySet().stream().noneMatch(k -> k.startsWith("leasehold.etcd."))) {
        return;
      }
      EtcdSettings.Builder etcd = EtcdSettings.builder();
      text("leasehold.etcd.endpoints", v -> etcd.endpoints(
          Arrays.stream(v.split(",", -1)).map(String::strip).toList()));
      if (p.containsKey("leasehold.etcd.user") || p.containsKey("leasehold.etcd.password")) {
        String password = p.get("leasehold.etcd.password");
        etcd.credentials(p.get("leasehold.etcd.user"), password == null ? null : password.toCharArray());
      }
      text("leasehold.etcd.tls.ca", v -> etcd.tls(Path.of(v)));
      flag("leasehold.etcd.tls.jvm-default-trust", jvm -> {
        if (jvm && p.containsKey("leasehold.etcd.tls.ca")) {
          throw refused("leasehold.etcd.tls.jvm-default-trust", " must be false when "
              + spelt("leasehold.etcd.tls.ca") + " is set (trust one or the other), but was true");
        }
        if (jvm) {
          etcd.tlsJvmDefaultTrust();
        }
      });
      String cert = p.get("leasehold.etcd.tls.client-certificate");
      String key = p.get("leasehold.etcd.tls.client-key");
      if (cert != null || key != null) {
        etcd.tlsClientCertificate(cert == null ? null : Path.of(cert.strip()), key == null ? null : Path.of(key.strip()));
      }
      text("leasehold.etcd.tls.authority", etcd::tlsAuthority);
      b.etcdFrom(etcd::build);
    }

    private void jdbc() {
      if (p.keySet().stream().noneMatch(k -> k.startsWith("leasehold.jdbc."))) {
        return;
      }
      JdbcSettings.Builder jdbc = JdbcSettings.builder();
      String url = p.get("leasehold.jdbc.url");
      if (url != null) {
        try {
          DriverManager.getDriver(url);
        } catch (SQLException e) {
          throw refused("leasehold.jdbc.url", " must be a URL a JDBC driver on the class path accepts (add"
              + " the PostgreSQL JDBC driver, MariaDB Connector/J or MySQL Connector/J), but was \"" + url + "\" (" + e.getMessage() + ")");
        }
      }
      jdbc.jdbcUrl(url, p.get("leasehold.jdbc.user"), p.get("leasehold.jdbc.password"));
      text("leasehold.jdbc.table", jdbc::table);
      flag("leasehold.jdbc.create-table", jdbc::createTable);
      flag("leasehold.jdbc.allow-relaxed-durability", jdbc::allowRelaxedDurability);
      b.jdbcFrom(jdbc::build);
    }

    private void text(String property, Consumer<String> to) {
      String v = p.get(property);
      if (v != null) {
        to.accept(v.strip());
      }
    }

    private void duration(String property, Consumer<Duration> to) {
      if (p.containsKey(property)) {
        to.accept(toDuration(property));
      }
    }

    private void flag(String property, Consumer<Boolean> to) {
      String v = p.get(property);
      if (v == null) {
        return;
      }
      String s = v.strip().toLowerCase(Locale.ROOT);
      if (!s.equals("true") && !s.equals("false")) {
        throw refused(property, " must be true or false, but was \"" + v + "\"");
      }
      to.accept(Boolean.parseBoolean(s));
    }

    private Duration toDuration(String property) {
      String name = spelt(property);
      try {
        return Durations.parse(name, p.get(property));
      } catch (IllegalArgumentException e) {
        throw refused(property, e.getMessage().substring(name.length()));
      }
    }

    private double number(String property, String v) {
      try {
        return Double.parseDouble(v);
      } catch (NumberFormatException e) {
        throw refused(property, " must be a number such as 0.01, but was \"" + v + "\"");
      }
    }

    private int integer(String property, String v) {
      try {
        return Integer.parseInt(v.strip());
      } catch (NumberFormatException e) {
        throw refused(property, " must be a whole number such as 10 or -1, but was \"" + v + "\"");
      }
    }

    private List<Backend> backends(String v) {
      List<Backend> out = new ArrayList<>();
      for (String one : v.split(",", -1)) {
        try {
          out.add(Backend.parse(one));
        } catch (IllegalArgumentException e) {
          throw refused("leasehold.backends", " must be a comma-separated list of etcd, jdbc, local, but was \""
              + v + "\" (\"" + one.strip() + "\" is none of them)");
        }
      }
      return out;
    }

    private FallbackPolicy policy(String v) {
      try {
        return FallbackPolicy.parse(v);
      } catch (IllegalArgumentException e) {
        throw refused("leasehold.fallback",
            " must be one of fail-closed, fall-back, fall-back-and-return, but was \"" + v + "\"");
      }
    }

    private PropertyException refused(String property, String problem) {
      return new PropertyException(property, problem, spelt(property) + problem, null);
    }
  }
}
