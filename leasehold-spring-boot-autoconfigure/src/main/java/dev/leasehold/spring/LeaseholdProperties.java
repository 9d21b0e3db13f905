package dev.leasehold.spring;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * LeaseholdProperties are the {@code leasehold.*} settings of the context's elector. Unset
 * optional values take core's defaults (see the README's configuration table); every value is
 * validated by core's builder at start-up, and a bad one fails the start with its property's
 * name ({@code leasehold.ttl must be >= 1s, but was 200ms}).
 *
 * <p>Not thread-safe: bound once at start-up, read-only afterwards.
 */
@ConfigurationProperties("leasehold")
public class LeaseholdProperties {
  /** Backend is the store the elector runs on. */
  public enum Backend {
    /** ETCD: an etcd cluster ({@code leasehold.etcd.*}); the distributed guarantee. */
    ETCD,
    /** JDBC: a MariaDB/MySQL server ({@code leasehold.jdbc.*}); one database's guarantee. */
    JDBC,
    /** LOCAL: an in-process store; excludes only electors of this JVM (tests, one-instance deployments). */
    LOCAL
  }

  /** Whether to create and start an elector. */
  private boolean enabled = true;
  /** Store the elector runs on. */
  private Backend backend = Backend.ETCD;
  /** Election key (etcd key, or the JDBC lease row's name) whose holder leads; required. */
  private String key;
  /** This instance's label in the key's value and in events; default host-pid-random. */
  private String candidateId;
  /** Lease TTL, whole seconds, at least 1 s: longer rides out longer store outages, shorter fails over faster. */
  private Duration ttl = Duration.ofSeconds(5);
  /** Subtracted from every local deadline; default TTL/10. */
  private Duration safetyMargin;
  /** Assumed bound on the local clock's rate error, in [0, 0.1); default 0.01. */
  private Double maxDriftRate;
  /** How often a follower reads the key besides watching it; default 1 s. */
  private Duration pollInterval;
  /** Bound on every store call, under TTL/3; default min(1 s, TTL/4). */
  private Duration rpcTimeout;
  /** First delay between retries after a store error; default 100 ms. */
  private Duration retryBackoffInitial;
  /** Largest delay between retries; default 1 s. */
  private Duration retryBackoffMax;
  /** How long an instance that resigned sits out; default the TTL. */
  private Duration resignHoldoff;
  /** Whether followers keep a standby lease for a faster takeover (etcd and local); default true. */
  private Boolean standbyLease;
  private final Etcd etcd = new Etcd();
  private final Jdbc jdbc = new Jdbc();

  public boolean isEnabled() { return enabled; }
  public void setEnabled(boolean enabled) { this.enabled = enabled; }
  public Backend getBackend() { return backend; }
  public void setBackend(Backend backend) { this.backend = backend; }
  public String getKey() { return key; }
  public void setKey(String key) { this.key = key; }
  public String getCandidateId() { return candidateId; }
  public void setCandidateId(String candidateId) { this.candidateId = candidateId; }
  public Duration getTtl() { return ttl; }
  public void setTtl(Duration ttl) { this.ttl = ttl; }
  public Duration getSafetyMargin() { return safetyMargin; }
  public void setSafetyMargin(Duration safetyMargin) { this.safetyMargin = safetyMargin; }
  public Double getMaxDriftRate() { return maxDriftRate; }
  public void setMaxDriftRate(Double maxDriftRate) { this.maxDriftRate = maxDriftRate; }
  public Duration getPollInterval() { return pollInterval; }
  public void setPollInterval(Duration pollInterval) { this.pollInterval = pollInterval; }
  public Duration getRpcTimeout() { return rpcTimeout; }
  public void setRpcTimeout(Duration rpcTimeout) { this.rpcTimeout = rpcTimeout; }
  public Duration getRetryBackoffInitial() { return retryBackoffInitial; }
  public void setRetryBackoffInitial(Duration d) { this.retryBackoffInitial = d; }
  public Duration getRetryBackoffMax() { return retryBackoffMax; }
  public void setRetryBackoffMax(Duration d) { this.retryBackoffMax = d; }
  public Duration getResignHoldoff() { return resignHoldoff; }
  public void setResignHoldoff(Duration resignHoldoff) { this.resignHoldoff = resignHoldoff; }
  public Boolean getStandbyLease() { return standbyLease; }
  public void setStandbyLease(Boolean standbyLease) { this.standbyLease = standbyLease; }
  public Etcd getEtcd() { return etcd; }
  public Jdbc getJdbc() { return jdbc; }

  /** Etcd holds {@code leasehold.etcd.*}. Not thread-safe; bound once. */
  public static class Etcd {
    /** etcd client URLs, all http:// or all https:// (https needs leasehold.etcd.tls.*). */
    private List<String> endpoints = new ArrayList<>();
    /** etcd user, when etcd runs with auth enabled. */
    private String user;
    /** etcd password of the user. */
    private String password;
    private final Tls tls = new Tls();

    public List<String> getEndpoints() { return endpoints; }
    public void setEndpoints(List<String> endpoints) { this.endpoints = endpoints; }
    public String getUser() { return user; }
    public void setUser(String user) { this.user = user; }
    public String getPassword() { return password; }
    public void setPassword(String password) { this.password = password; }
    public Tls getTls() { return tls; }
  }

  /** Tls holds {@code leasehold.etcd.tls.*}. Not thread-safe; bound once. */
  public static class Tls {
    /** PEM file of the CA certificates to trust (enables TLS). */
    private Path caCertificate;
    /** Trust the JVM's default CAs instead of a file (enables TLS). */
    private boolean jvmDefaultTrust;
    /** PEM certificate chain for mutual TLS, own certificate first. */
    private Path clientCertificate;
    /** Unencrypted PKCS#8 PEM key of the client certificate. */
    private Path clientKey;
    /** Host name the server's certificate must carry; default each endpoint's host. */
    private String authority;

    public Path getCaCertificate() { return caCertificate; }
    public void setCaCertificate(Path caCertificate) { this.caCertificate = caCertificate; }
    public boolean isJvmDefaultTrust() { return jvmDefaultTrust; }
    public void setJvmDefaultTrust(boolean jvmDefaultTrust) { this.jvmDefaultTrust = jvmDefaultTrust; }
    public Path getClientCertificate() { return clientCertificate; }
    public void setClientCertificate(Path clientCertificate) { this.clientCertificate = clientCertificate; }
    public Path getClientKey() { return clientKey; }
    public void setClientKey(Path clientKey) { this.clientKey = clientKey; }
    public String getAuthority() { return authority; }
    public void setAuthority(String authority) { this.authority = authority; }
  }

  /**
   * Jdbc holds {@code leasehold.jdbc.*}. The elector opens its own unpooled session with
   * these (by default {@code spring.datasource.url}, {@code .username}, {@code .password});
   * the application's DataSource serves the guarded writes ({@code JdbcFencing.guard}). Not
   * thread-safe; bound once.
   */
  public static class Jdbc {
    /** JDBC URL of the elector's own session; default spring.datasource.url. */
    private String url;
    /** User of the elector's session; default spring.datasource.username. */
    private String username;
    /** Password of the elector's session; default spring.datasource.password. */
    private String password;
    /** Lease table, name or schema.name; default leasehold_lease. */
    private String table;
    /** Whether the elector may create a missing lease table. */
    private boolean createTable;
    /** Whether to accept a server with innodb_flush_log_at_trx_commit other than 1. */
    private boolean allowRelaxedDurability;

    public String getUrl() { return url; }
    public void setUrl(String url) { this.url = url; }
    public String getUsername() { return username; }
    public void setUsername(String username) { this.username = username; }
    public String getPassword() { return password; }
    public void setPassword(String password) { this.password = password; }
    public String getTable() { return table; }
    public void setTable(String table) { this.table = table; }
    public boolean isCreateTable() { return createTable; }
    public void setCreateTable(boolean createTable) { this.createTable = createTable; }
    public boolean isAllowRelaxedDurability() { return allowRelaxedDurability; }
    public void setAllowRelaxedDurability(boolean allow) { this.allowRelaxedDurability = allow; }
  }
}
