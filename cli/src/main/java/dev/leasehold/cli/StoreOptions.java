package dev.leasehold.cli;

import dev.leasehold.LeaderElector;
import dev.leasehold.select.Backends;
import dev.leasehold.select.PropertyException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * StoreOptions are the backend options every subcommand shares: {@code --endpoints} with its
 * TLS and user options selects etcd, {@code --jdbc-url} with its user and table the SQL backend (PostgreSQL, MariaDB/MySQL).
 * Passwords come from a file or an environment variable, never from the command line, where
 * every local user could read them in {@code /proc/PID/cmdline}.
 *
 * <p>Not thread-safe: picocli fills it in, then one thread reads it.
 */
final class StoreOptions {
  /** ETCD_PASSWORD_ENV holds the etcd password when {@code --password-file} is not given. */
  static final String ETCD_PASSWORD_ENV = "LEASEHOLD_ETCD_PASSWORD";
  /** JDBC_PASSWORD_ENV holds the database password when {@code --jdbc-password-file} is not given. */
  static final String JDBC_PASSWORD_ENV = "LEASEHOLD_JDBC_PASSWORD";

  /** OPTIONS names each property these options (and the commands' own) set, for core's refusals. */
  static final Map<String, String> OPTIONS = Map.ofEntries(
      Map.entry("leasehold.key", "--key"),
      Map.entry("leasehold.candidate-id", "--id"),
      Map.entry("leasehold.ttl", "--ttl"),
      Map.entry("leasehold.priority", "--priority"),
      Map.entry("leasehold.preempt-after", "--preempt-after"),
      Map.entry("leasehold.etcd.endpoints", "--endpoints"),
      Map.entry("leasehold.etcd.tls.ca", "--tls-ca"),
      Map.entry("leasehold.etcd.tls.client-certificate", "--tls-cert"),
      Map.entry("leasehold.etcd.tls.client-key", "--tls-key"),
      Map.entry("leasehold.etcd.user", "--user"),
      Map.entry("leasehold.etcd.password", "--password-file"),
      Map.entry("leasehold.jdbc.url", "--jdbc-url"),
      Map.entry("leasehold.jdbc.user", "--jdbc-user"),
      Map.entry("leasehold.jdbc.password", "--jdbc-password-file"),
      Map.entry("leasehold.jdbc.table", "--jdbc-table"),
      Map.entry("leasehold.jdbc.create-table", "--create-table"),
      Map.entry("leasehold.jdbc.allow-relaxed-durability", "--jdbc-allow-relaxed-durability"));

  /**
   * ADVICE maps the builder calls core's refusals advise to this command's options, in the order
   * they are replaced.
   */
  private static final Map<String, String> ADVICE = orderedMap(
      "let the elector create it with createTable(true)", "let leasehold create it with --create-table",
      "accept that with allowRelaxedDurability(true) on the builder", "accept that with --jdbc-allow-relaxed-durability",
      "check credentials(...)", "check --user and its password",
      "(credentials(user, password))", "(--user, with --password-file or $" + ETCD_PASSWORD_ENV + ")",
      "tls(...)", "--tls-ca");
  private static final Pattern AUTHORITY = Pattern.compile("//(?:[^/?;@]*@)?([^/?;]+)");
  private static final Pattern TABLE_CALL = Pattern.compile("table\\(\"([^\"]*)\"\\)");

  @Spec(Spec.Target.MIXEE)
  CommandSpec spec;

  @Option(names = "--endpoints", split = ",", paramLabel = "URL",
      description = "etcd client URLs, comma-separated; https:// ones need --tls-ca. Selects etcd")
  List<String> endpoints;

  @Option(names = "--tls-ca", paramLabel = "FILE",
      description = "etcd: PEM file of the CA certificates to trust; required for https:// endpoints")
  Path cacert;

  @Option(names = "--tls-cert", paramLabel = "FILE",
      description = "etcd: PEM client certificate chain for mutual TLS (with --tls-key)")
  Path cert;

  @Option(names = "--tls-key", paramLabel = "FILE",
      description = "etcd: the client certificate's unencrypted PKCS#8 PEM key (with --tls-cert)")
  Path keyFile;

  // The names these had before 0.1.0, kept working but out of the help: --key-file beside the
  // election's --key was easy to confuse.
  @Option(names = "--cacert", hidden = true, paramLabel = "FILE")
  void oldCacert(Path file) {
    cacert = file;
  }

  @Option(names = "--cert", hidden = true, paramLabel = "FILE")
  void oldCert(Path file) {
    cert = file;
  }

  @Option(names = "--key-file", hidden = true, paramLabel = "FILE")
  void oldKeyFile(Path file) {
    keyFile = file;
  }

  @Option(names = "--user", paramLabel = "NAME",
      description = "etcd user; the password comes from --password-file or $" + ETCD_PASSWORD_ENV)
  String user;

  @Option(names = "--password-file", paramLabel = "FILE",
      description = "etcd: file holding the password (one trailing newline is dropped)")
  Path passwordFile;

  @Option(names = "--jdbc-url", paramLabel = "URL",
      description = "PostgreSQL or MariaDB/MySQL JDBC URL, e.g. jdbc:postgresql://db:5432/app; selects SQL."
          + " The PostgreSQL driver is built in; MariaDB's or MySQL's jar comes from $LEASEHOLD_CLASSPATH")
  String jdbcUrl;

  @Option(names = "--jdbc-user", paramLabel = "NAME",
      description = "database user; the password comes from --jdbc-password-file or $" + JDBC_PASSWORD_ENV)
  String jdbcUser;

  @Option(names = "--jdbc-password-file", paramLabel = "FILE",
      description = "file holding the database password (one trailing newline is dropped)")
  Path jdbcPasswordFile;

  @Option(names = "--jdbc-table", paramLabel = "TABLE", defaultValue = "leasehold_lease",
      description = "lease table, name or schema.name (default: ${DEFAULT-VALUE})")
  String jdbcTable;

  @Option(names = "--create-table",
      description = "create the lease table if it is missing (needs the CREATE privilege)")
  boolean createTable;

  @Option(names = "--jdbc-allow-relaxed-durability",
      description = "accept a server with innodb_flush_log_at_trx_commit <> 1, whose crash may lose the last"
          + " takes and renewals (a repeated fencing token); refused by default")
  boolean allowRelaxedDurability;

  /** isEtcd tells whether etcd was chosen; call after {@link #validate()}. */
  boolean isEtcd() {
    return endpoints != null;
  }

  /** backend names the chosen backend for the child's environment: etcd or jdbc. */
  String backend() {
    return isEtcd() ? "etcd" : "jdbc";
  }

  /** validate checks the options across one another; errors name the option and the value. */
  void validate() {
    if ((endpoints == null) == (jdbcUrl == null)) {
      throw usage(endpoints == null
          ? "one of --endpoints (etcd) or --jdbc-url (PostgreSQL, MariaDB/MySQL) is required"
          : "--endpoints and --jdbc-url must not both be given, but were " + String.join(",", endpoints)
              + " and " + jdbcUrl);
    }
    if (isEtcd()) {
      validateEtcd();
    } else {
      validateJdbc();
    }
  }

  private void validateEtcd() {
    for (String o : List.of("--jdbc-user", "--jdbc-password-file", "--create-table",
        "--jdbc-allow-relaxed-durability")) {
      if (spec.commandLine().getParseResult().hasMatchedOption(o)) {
        throw usage(o + " needs --jdbc-url; with --endpoints it does not apply");
      }
    }
    boolean https = endpoints.stream().anyMatch(e -> e.trim().startsWith("https://"));
    if (https && cacert == null) {
      throw usage("--tls-ca must be given for https:// endpoints, but was not (--endpoints "
          + String.join(",", endpoints) + ")");
    }
    if ((cert == null) != (keyFile == null)) {
      throw usage(cert == null ? "--tls-cert must be given with --tls-key " + keyFile
          : "--tls-key must be given with --tls-cert " + cert);
    }
    if (passwordFile != null && user == null) {
      throw usage("--user must be given with --password-file " + passwordFile);
    }
  }

  private void validateJdbc() {
    for (String o : List.of("--tls-ca", "--tls-cert", "--tls-key", "--cacert", "--cert", "--key-file", "--user",
        "--password-file")) {
      if (spec.commandLine().getParseResult().hasMatchedOption(o)) {
        throw usage(o + " is an etcd option; with --jdbc-url use the driver's URL options (TLS) or --jdbc-user");
      }
    }
    if (!jdbcUrl.startsWith("jdbc:")) {
      throw usage("--jdbc-url must be a JDBC URL such as jdbc:postgresql://db:5432/app, but was \"" + jdbcUrl + "\"");
    }
    try {
      DriverManager.getDriver(jdbcUrl);
    } catch (SQLException e) {
      throw usage("--jdbc-url " + jdbcUrl + " is accepted by no JDBC driver on the class path: put the"
          + " driver's jar (MariaDB or MySQL Connector/J; PostgreSQL's is built in) in $LEASEHOLD_CLASSPATH");
    }
    if (jdbcPasswordFile != null && jdbcUser == null) {
      throw usage("--jdbc-user must be given with --jdbc-password-file " + jdbcPasswordFile);
    }
  }

  /**
   * elector builds the elector for the chosen backend with core's {@code Backends.fromProperties},
   * from these options and {@code neutral}'s {@code leasehold.*} properties (the key, the id,
   * the TTL), one vocabulary with the library's and Spring's; a setting core refuses is
   * reported as a usage error that names the option.
   */
  LeaderElector elector(Map<String, String> neutral) {
    Map<String, String> p = new LinkedHashMap<>(neutral);
    if (isEtcd()) {
      p.put("leasehold.backends", "etcd");
      p.put("leasehold.etcd.endpoints", String.join(",", trimmed()));
      put(p, "leasehold.etcd.tls.ca", cacert);
      put(p, "leasehold.etcd.tls.client-certificate", cert);
      put(p, "leasehold.etcd.tls.client-key", keyFile);
      if (user != null) {
        p.put("leasehold.etcd.user", user);
        p.put("leasehold.etcd.password", new String(etcdPassword()));
      }
    } else {
      p.put("leasehold.backends", "jdbc");
      p.put("leasehold.jdbc.url", jdbcUrl);
      if (jdbcUser != null) {
        p.put("leasehold.jdbc.user", jdbcUser);
        p.put("leasehold.jdbc.password", new String(jdbcPassword()));
      }
      p.put("leasehold.jdbc.table", jdbcTable);
      p.put("leasehold.jdbc.create-table", Boolean.toString(createTable));
      p.put("leasehold.jdbc.allow-relaxed-durability", Boolean.toString(allowRelaxedDurability));
    }
    try {
      return Backends.fromProperties(p).build();
    } catch (PropertyException e) {
      String option = OPTIONS.get(e.property());
      throw usage(option == null ? e.getMessage() : option + e.problem());
    } catch (IllegalArgumentException e) {
      throw usage(e.getMessage());
    }
  }

  private static void put(Map<String, String> p, String property, Path file) {
    if (file != null) {
      p.put(property, file.toString());
    }
  }

  /**
   * where names the chosen store by host and port for messages: "etcd at h1:2379, h2:2379" or
   * "the database at db:3306".
   */
  String where() {
    return isEtcd()
        ? "etcd at " + String.join(", ", trimmed().stream().map(StoreOptions::hostPort).toList())
        : "the database at " + hostPort(jdbcUrl);
  }

  /** hostPort is a URL's host and port as written (no user or password), or the URL if it has none. */
  static String hostPort(String url) {
    Matcher m = AUTHORITY.matcher(url);
    return m.find() ? m.group(1) : url;
  }

  /** trimmed is the endpoint list without blanks around each URL. */
  List<String> trimmed() {
    return endpoints.stream().map(String::trim).toList();
  }

  /** etcdPassword reads the etcd password from its file or environment variable. */
  char[] etcdPassword() {
    return password(passwordFile, ETCD_PASSWORD_ENV, "--password-file", "--user " + user);
  }

  /** jdbcPassword reads the database password from its file or environment variable. */
  char[] jdbcPassword() {
    return password(jdbcPasswordFile, JDBC_PASSWORD_ENV, "--jdbc-password-file", "--jdbc-user " + jdbcUser);
  }

  /**
   * inOptionNames is a message of core's with the builder calls it advises ({@code
   * createTable(true)}) replaced by this command's options ({@code --create-table}).
   */
  static String inOptionNames(String message) {
    String s = message;
    for (Map.Entry<String, String> e : ADVICE.entrySet()) {
      s = s.replace(e.getKey(), e.getValue());
    }
    return TABLE_CALL.matcher(s).replaceAll(m -> Matcher.quoteReplacement("--jdbc-table " + m.group(1)));
  }

  private static Map<String, String> orderedMap(String... pairs) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      m.put(pairs[i], pairs[i + 1]);
    }
    return m;
  }

  /** scrub removes the passwords' variables from a child's environment: it has no need of them. */
  static void scrub(Map<String, String> environment) {
    environment.remove(ETCD_PASSWORD_ENV);
    environment.remove(JDBC_PASSWORD_ENV);
  }

  private char[] password(Path file, String env, String option, String forWhom) {
    if (file != null) {
      try {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        if (text.endsWith("\n")) {
          text = text.substring(0, text.length() - (text.endsWith("\r\n") ? 2 : 1));
        }
        if (text.isEmpty()) {
          throw usage(option + " must hold a password, but " + file + " is empty");
        }
        return text.toCharArray();
      } catch (IOException e) {
        throw usage(option + " must be a readable file, but " + file + " cannot be read (" + e + ")");
      }
    }
    String value = System.getenv(env);
    if (value == null || value.isEmpty()) {
      throw usage(option + " or $" + env + " must give the password for " + forWhom + ", but neither did");
    }
    return value.toCharArray();
  }

  private ParameterException usage(String message) {
    return new ParameterException(spec.commandLine(), message);
  }
}
