package dev.leasehold.spring;

import dev.leasehold.etcd.EtcdSettings;
import dev.leasehold.etcd.EtcdSession;
import dev.leasehold.local.LocalStore;
import dev.leasehold.select.Backends;
import dev.leasehold.select.FallbackElector;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * ElectorFactory builds the context's elector with core's {@link Backends}, from the {@code
 * leasehold.*} properties of the Spring environment (any source: files, environment variables,
 * command line), handed to {@link Backends#fromProperties} as one map, so the names, the
 * parsing, the checks and the fallback policy are core's own. A refusal is rethrown naming the
 * property.
 *
 * <p>The starter adds: {@code leasehold.backends} defaults to {@code etcd}; the JDBC backend's
 * session defaults to {@code spring.datasource.url}, {@code .username}, {@code .password}; a
 * {@code LocalStore} bean serves the local backend; {@code leasehold.enabled} is its own.
 * Stateless and thread-safe.
 */
final class ElectorFactory {
  /** ENABLED is the starter's own property, which core does not know. */
  private static final String ENABLED = "leasehold.enabled";

  /** JOBS is the prefix of the starter's own properties of {@code @LeaderOnly(key)}'s session. */
  private static final String JOBS = "leasehold.jobs.";

  private static final Pattern INDEXED = Pattern.compile("(.+?)(?:\\[(\\d+)]|\\.(\\d+))");

  private ElectorFactory() {}

  /** build validates the properties and builds an elector that has not started. */
  static FallbackElector build(Environment env, LocalStore localStore, dev.leasehold.HealthCheck healthCheck) {
    Map<String, String> p = properties(env);
    try {
      String backends = p.get("leasehold.backends");
      if (backends.toLowerCase(Locale.ROOT).contains("jdbc") && !p.containsKey("leasehold.jdbc.url")) {
        copy(env, "spring.datasource.url", p, "leasehold.jdbc.url");
        copy(env, "spring.datasource.username", p, "leasehold.jdbc.user");
        copy(env, "spring.datasource.password", p, "leasehold.jdbc.password");
      }
      Backends.Builder b = Backends.fromProperties(p);
      if (localStore != null && backends.toLowerCase(Locale.ROOT).contains("local")) {
        b.local(localStore);
      }
      if (healthCheck != null) {
        b.healthCheck(healthCheck);
      }
      return b.build();
    } catch (IllegalArgumentException e) {
      throw LeaseholdPropertyException.fromCore(e);
    }
  }

  /**
   * etcdSettings is the etcd settings core makes from the {@code leasehold.etcd.*} properties,
   * the value the elector's etcd electors are made from; for the application's jetcd client.
   *
   * @throws LeaseholdPropertyException naming the property and the value of the first problem
   */
  static EtcdSettings etcdSettings(Environment env) {
    Optional<EtcdSettings> settings;
    try {
      settings = Backends.fromProperties(properties(env)).etcdSettings();
    } catch (IllegalArgumentException e) {
      throw LeaseholdPropertyException.fromCore(e);
    }
    return settings.orElseThrow(() -> new LeaseholdPropertyException("leasehold.etcd.endpoints",
        "leasehold.etcd.endpoints must be set for the etcd client, but was not", null));
  }

  /**
   * namesEtcd is true when the properties name etcd as a backend (the starter's default) and
   * give its endpoints.
   */
  static boolean namesEtcd(Environment env) {
    Map<String, String> p = properties(env);
    boolean listed = Arrays.stream(p.get("leasehold.backends").split(","))
        .anyMatch(b -> b.trim().equalsIgnoreCase("etcd"));
    return listed && p.containsKey("leasehold.etcd.endpoints");
  }

  /**
   * jobSession builds the spreading session of {@code @LeaderOnly(key)} methods from {@code
   * leasehold.*}: the elector's settings, with the prefix {@code leasehold.jobs.prefix}
   * (default {@code leasehold.key + "/jobs/"}) and this instance's {@code leasehold.jobs.weight}
   * (default 1), following {@code healthCheck} (null: none) as the elector does. A refusal is
   * rethrown naming the property.
   */
  static EtcdSession jobSession(Environment env, dev.leasehold.HealthCheck healthCheck) {
    Map<String, String> p = properties(env);
    String weight = env.getProperty(JOBS + "weight", "1");
    int w;
    try {
      w = Integer.parseInt(weight.trim());
    } catch (NumberFormatException e) {
      w = 0;
    }
    if (w < 1 || w > EtcdSession.Builder.MAX_WEIGHT) {
      throw new LeaseholdPropertyException(JOBS + "weight", JOBS + "weight=\"" + weight
          + "\": must be a whole number from 1 to " + EtcdSession.Builder.MAX_WEIGHT, null);
    }
    String prefix = env.getProperty(JOBS + "prefix");
    if (prefix == null || prefix.isBlank()) {
      prefix = p.getOrDefault("leasehold.key", "") + "/jobs/";
    }
    try {
      Backends.Builder b = Backends.fromProperties(p);
      if (healthCheck != null) {
        b.healthCheck(healthCheck);
      }
      return b.spreadingSession(prefix, w);
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
    p.remove(ENABLED);
    p.keySet().removeIf(k -> k.startsWith(JOBS) || k.startsWith(SpringHealthChecks.PREFIX));
    p.putIfAbsent("leasehold.backends", "etcd");
    return p;
  }

  /**
   * canonical is the known name {@code key} spells, with '-' and '.' alike (environment
   * variables reach the binder without their dashes: LEASEHOLD_CANDIDATE_ID is
   * leasehold.candidate.id), else {@code key}.
   */
  private static String canonical(String key) {
    String loose = key.toLowerCase(Locale.ROOT).replace('-', '.');
    for (String known : Backends.propertyNames()) {
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
