package dev.leasehold.cli;

import dev.leasehold.ElectorConfig;
import dev.leasehold.LeaderElector;
import dev.leasehold.etcd.EtcdLeaderElector;
import dev.leasehold.jdbc.JdbcLeaderElector;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * StoreOptions are the backend options every subcommand shares: {@code --endpoints} with its
 * TLS and user options selects etcd, {@code --jdbc-url} with its user and table MariaDB/MySQL.
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

  @Spec(Spec.Target.MIXEE)
  CommandSpec spec;

  @Option(names = "--endpoints", split = ",", paramLabel = "URL",
      description = "etcd client URLs, comma-separated (http://host:2379, or https:// with --cacert); selects etcd")
  List<String> endpoints;

  @Option(names = "--cacert", paramLabel = "FILE",
      description = "etcd: PEM file of the CA certificates to trust; required for https:// endpoints")
  Path cacert;

  @Option(names = "--cert", paramLabel = "FILE",
      description = "etcd: PEM client certificate chain for mutual TLS (with --key-file)")
  Path cert;

  @Option(names = "--key-file", paramLabel = "FILE",
      description = "etcd: the client certificate's unencrypted PKCS#8 PEM key (--key is the election key)")
  Path keyFile;

  @Option(names = "--user", paramLabel = "NAME",
      description = "etcd user; the password comes from --password-file or $" + ETCD_PASSWORD_ENV)
  String user;

  @Option(names = "--password-file", paramLabel = "FILE",
      description = "etcd: file holding the password (one trailing newline is dropped)")
  Path passwordFile;

  @Option(names = "--jdbc-url", paramLabel = "URL",
      description = "MariaDB/MySQL JDBC URL, e.g. jdbc:mariadb://db:3306/app; selects SQL. The driver jar comes"
          + " from $LEASEHOLD_CLASSPATH")
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
          ? "one of --endpoints (etcd) or --jdbc-url (MariaDB/MySQL) is required"
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
      throw usage("--cacert must be given for https:// endpoints, but was not (--endpoints "
          + String.join(",", endpoints) + ")");
    }
    if ((cert == null) != (keyFile == null)) {
      throw usage(cert == null ? "--cert must be given with --key-file " + keyFile
          : "--key-file must be given with --cert " + cert);
    }
    if (passwordFile != null && user == null) {
      throw usage("--user must be given with --password-file " + passwordFile);
    }
  }

  private void validateJdbc() {
    for (String o : List.of("--cacert", "--cert", "--key-file", "--user", "--password-file")) {
      if (spec.commandLine().getParseResult().hasMatchedOption(o)) {
        throw usage(o + " is an etcd option; with --jdbc-url use the driver's URL options (TLS) or --jdbc-user");
      }
    }
    if (!jdbcUrl.startsWith("jdbc:")) {
      throw usage("--jdbc-url must be a JDBC URL such as jdbc:mariadb://db:3306/app, but was \"" + jdbcUrl + "\"");
    }
    try {
      DriverManager.getDriver(jdbcUrl);
    } catch (SQLException e) {
      throw usage("--jdbc-url " + jdbcUrl + " is accepted by no JDBC driver on the class path: put the"
          + " driver's jar (MariaDB or MySQL Connector/J) in $LEASEHOLD_CLASSPATH");
    }
    if (jdbcPasswordFile != null && jdbcUser == null) {
      throw usage("--jdbc-user must be given with --jdbc-password-file " + jdbcPasswordFile);
    }
  }

  /**
   * elector builds the elector for the chosen backend with the neutral settings of
   * {@code config}; a setting the backend refuses is reported as a usage error that names the
   * option.
   */
  LeaderElector elector(ElectorConfig config) {
    try {
      if (isEtcd()) {
        EtcdLeaderElector.Builder b = EtcdLeaderElector.builder().config(config).endpoints(trimmed());
        if (cacert != null) {
          b.tls(cacert);
        }
        if (cert != null) {
          b.tlsClientCertificate(cert, keyFile);
        }
        if (user != null) {
          b.credentials(user, etcdPassword());
        }
        return b.build();
      }
      String pw = jdbcUser == null ? null : new String(jdbcPassword());
      return JdbcLeaderElector.builder().config(config).jdbcUrl(jdbcUrl, jdbcUser, pw)
          .table(jdbcTable).createTable(createTable).allowRelaxedDurability(allowRelaxedDurability).build();
    } catch (IllegalArgumentException e) {
      throw usage(OptionNames.translate(e.getMessage()));
    }
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

  /** OptionNames translates the builders' field names in a message into this command's options. */
  static final class OptionNames {
    private static final String[][] FIELDS = {
        {"tlsClientCertificate certificateChain", "--cert"},
        {"tlsClientCertificate privateKey", "--key-file"},
        {"tls caCertificate", "--cacert"},
        {"credentials user", "--user"},
        {"credentials password", "--password-file"},
        {"electionKey", "--key"},
        {"candidateId", "--id"},
        {"leaseTtl", "--ttl"},
        {"jdbcUrl", "--jdbc-url"},
        {"table", "--jdbc-table"},
        {"endpoints", "--endpoints"},
    };

    private OptionNames() {}

    /** translate replaces the leading field name of a builder's message by the option's name. */
    static String translate(String message) {
      if (message == null) {
        return "invalid option";
      }
      for (String[] f : FIELDS) {
        if (message.startsWith(f[0])) {
          return f[1] + message.substring(f[0].length());
        }
      }
      return message;
    }
  }
}
