package dev.leasehold.spring;

import dev.leasehold.etcd.EtcdLeaderElector;
import dev.leasehold.local.LocalStore;
import dev.leasehold.select.Backends;
import dev.leasehold.select.FallbackElector;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * ElectorFactory builds the context's elector with core's {@link Backends}, from the {@code
 * leasehold.*} properties of the Spring environment (any source: files, environment variables,
 * command line), so the names, the parsing, the checks and the fallback policy are core's own.
 * A refusal is rethrown naming the property.
 *
 * <p>The starter adds: {@code leasehold.backends} defaults to {@code etcd}; the JDBC backend's
 * session defaults to {@code spring.datasource.url}, {@code .username}, {@code .password}; a
 * {@code LocalStore} bean serves the local backend; and three etcd TLS settings core's
 * properties lack ({@link #SPRING_ONLY_ETCD}). Stateless and thread-safe.
 */
final class ElectorFactory {
  /** The etcd settings only the starter reads, for mutual TLS and the JVM's trust store. */
  static final List<String> SPRING_ONLY_ETCD = List.of(
      "leasehold.etcd.tls.client-certificate", "leasehold.etcd.tls.client-key",
      "leasehold.etcd.tls.jvm-default-trust");

  // Core's names (README, "Choosing a backend"), and the starter's: environment variables reach
  // the binder without their dashes (LEASEHOLD_CANDIDATE_ID is leasehold.candidate.id), so keys
  // are matched with '-' and '.' alike.
  private static final List<String> KNOWN = List.of(
      "leasehold.backends", "leasehold.fallback", "leasehold.fallback.after",
      "leasehold.fallback.return-after", "leasehold.key", "leasehold.candidate-id", "leasehold.ttl",
      "leasehold.safety-margin", "leasehold.max-drift-rate", "leasehold.poll-interval",
      "leasehold.rpc-timeout", "leasehold.retry-backoff.initial", "leasehold.retry-backoff.max",
      "leasehold.resign-holdoff", "leasehold.standby-lease", "leasehold.close-on-shutdown",
      "leasehold.etcd.endpoints", "leasehold.etcd.user", "leasehold.etcd.password",
      "leasehold.etcd.tls.ca", "leasehold.etcd.tls.authority", "leasehold.jdbc.url",
      "leasehold.jdbc.user", "leasehold.jdbc.password", "leasehold.jdbc.table",
      "leasehold.jdbc.create-table", "leasehold.jdbc.allow-relaxed-durability",
      "leasehold.enabled", "leasehold.etcd.tls.client-certificate", "leasehold.etcd.tls.client-key",
      "leasehold.etcd.tls.jvm-default-trust");

  private static final Pattern INDEXED = Pattern.compile("(.+?)(?:\\[(\\d+)]|\\.(\\d+))");

  private ElectorFactory() {}

  /** build validates the properties and builds an elector that has not started. */
  static FallbackElector build(Environment env, LocalStore localStore) {
    Map<String, String> p = properties(env);
    try {
      String backends = p.get("leasehold.backends");
      if (backends.toLowerCase(Locale.ROOT).contains("jdbc") && !p.containsKey("leasehold.jdbc.url")) {
        copy(env, "spring.datasource.url", p, "leasehold.jdbc.url");
        copy(env, "spring.datasource.username", p, "leasehold.jdbc.user");
        copy(env, "spring.datasource.password", p, "leasehold.jdbc.password");
      }
      EtcdLeaderElector.Builder etcd = null;
      if (SPRING_ONLY_ETCD.stream().anyMatch(p::containsKey)) {
        etcd = etcd(p);
      }
      Backends.Builder b = Backends.fromProperties(p);
      if (etcd != null) {
        b.etcd(etcd);
      }
      if (localStore != null && backends.toLowerCase(Locale.ROOT).contains("local")) {
        b.local(localStore);
      }
      return b.build();
    } catch (IllegalArgumentException e) {
      throw LeaseholdPropertyException.fromCore(e);
    }
  }

  /**
   * properties flattens {@code leasehold.*} as core reads it: the items of a list (a YAML list,
   * or {@code leasehold.etcd.endpoints[0]} and {@code [1]}; Spring's binder names them {@code
   * .0} and {@code .1}) joined with commas; {@code leasehold.enabled}, the starter's
   * own, left out.
   */
  static Map<String, String> properties(Environment env) {
    Map<String, String> bound =
        Binder.get(env).bind("leasehold", Bindable.mapOf(String.class, String.class)).orElseGet(Map::of);
    Map<String, String> p = new TreeMap<>();
    Map<String, TreeMap<Integer, String>> lists = new TreeMap<>();
    for (Map.Entry<String, String> e : bound.entrySet()) {
      String key = canonical("leasehold." + e.getKey());
      Matcher m = INDEXED.matcher(key);
      if (m.matches()) {
        lists.computeIfAbsent(m.group(1), k -> new TreeMap<>()).put(Integer.parseInt(m.group(2) != null ? m.group(2) : m.group(3)), e.getValue());
      } else {
        p.put(key, e.getValue());
      }
    }
    lists.forEach((key, items) -> p.put(canonical(key), String.join(",", items.values())));
    p.remove("leasehold.enabled");
    p.putIfAbsent("leasehold.backends", "etcd");
    return p;
  }

  /** etcd builds the etcd settings itself (taking them out of {@code p}) when the starter's own are used. */
  private static EtcdLeaderElector.Builder etcd(Map<String, String> p) {
    EtcdLeaderElector.Builder b = EtcdLeaderElector.builder();
    String endpoints = p.remove("leasehold.etcd.endpoints");
    if (endpoints != null) {
      b.endpoints(Arrays.stream(endpoints.split(",", -1)).map(String::strip).toList());
    }
    String user = p.remove("leasehold.etcd.user");
    String password = p.remove("leasehold.etcd.password");
    if (user != null || password != null) {
      b.credentials(user, password == null ? null : password.toCharArray());
    }
    String ca = p.remove("leasehold.etcd.tls.ca");
    boolean jvm = Boolean.parseBoolean(p.remove("leasehold.etcd.tls.jvm-default-trust"));
    if (ca != null && jvm) {
      throw new LeaseholdPropertyException("leasehold.etcd.tls.jvm-default-trust",
          "leasehold.etcd.tls.jvm-default-trust must be false when leasehold.etcd.tls.ca is set"
              + " (trust one or the other), but was true", null);
    }
    if (ca != null) {
      b.tls(Path.of(ca));
    }
    if (jvm) {
      b.tlsJvmDefaultTrust();
    }
    String cert = p.remove("leasehold.etcd.tls.client-certificate");
    String key = p.remove("leasehold.etcd.tls.client-key");
    if (cert != null || key != null) {
      b.tlsClientCertificate(cert == null ? null : Path.of(cert), key == null ? null : Path.of(key));
    }
    String authority = p.remove("leasehold.etcd.tls.authority");
    if (authority != null) {
      b.tlsAuthority(authority);
    }
    List<String> left = new ArrayList<>(p.keySet());
    left.removeIf(k -> !k.startsWith("leasehold.etcd."));
    if (!left.isEmpty()) {
      throw new LeaseholdPropertyException(left.get(0), left.get(0) + " is not a Leasehold etcd property,"
          + " but was set to \"" + p.get(left.get(0)) + "\"", null);
    }
    return b;
  }

  /** canonical is the known name {@code key} spells, with '-' and '.' alike, else {@code key}. */
  private static String canonical(String key) {
    String loose = key.toLowerCase(Locale.ROOT).replace('-', '.');
    for (String known : KNOWN) {
      if (known.replace('-', '.').equals(loose)) {
        return known;
      }
    }
    return key;
  }

  private static void copy(Environment env, String from, Map<String, String> p, String to) {
    String v = env.getProperty(from);
    if (v != null && !v.isBlank()) {
      p.putIfAbsent(to, v);
    }
  }
}
