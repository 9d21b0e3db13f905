package dev.leasehold.spring;

import dev.leasehold.ElectorConfig;
import dev.leasehold.LeaderElector;
import dev.leasehold.etcd.EtcdLeaderElector;
import dev.leasehold.jdbc.JdbcLeaderElector;
import dev.leasehold.local.LocalLeaderElector;
import dev.leasehold.local.LocalStore;
import java.util.function.Supplier;
import org.springframework.core.env.Environment;

/**
 * ElectorFactory builds the context's elector from {@link LeaseholdProperties} with core's
 * builders, which validate every value; a refusal is rethrown naming the property.
 *
 * <p>Stateless and thread-safe.
 */
final class ElectorFactory {
  private ElectorFactory() {}

  /** build validates {@code p} and builds an elector that has not started. */
  static LeaderElector build(LeaseholdProperties p, Environment env, Supplier<LocalStore> localStore) {
    if (p.getBackend() == null) {
      throw new LeaseholdPropertyException(
          "leasehold.backend", "leasehold.backend must be etcd, jdbc or local, but was null", null);
    }
    try {
      return switch (p.getBackend()) {
        case ETCD -> etcd(p);
        case JDBC -> jdbc(p, env);
        case LOCAL -> common(LocalLeaderElector.builder(), p).store(localStore.get()).build();
      };
    } catch (IllegalArgumentException e) {
      throw LeaseholdPropertyException.fromCore(e);
    }
  }

  private static LeaderElector etcd(LeaseholdProperties p) {
    LeaseholdProperties.Etcd etcd = p.getEtcd();
    EtcdLeaderElector.Builder b = common(EtcdLeaderElector.builder(), p).endpoints(etcd.getEndpoints());
    LeaseholdProperties.Tls tls = etcd.getTls();
    if (tls.isJvmDefaultTrust() && tls.getCaCertificate() != null) {
      throw new LeaseholdPropertyException(
          "leasehold.etcd.tls.jvm-default-trust",
          "leasehold.etcd.tls.jvm-default-trust must be false when leasehold.etcd.tls.ca-certificate"
              + " is set (trust one or the other), but was true",
          null);
    }
    if (tls.getCaCertificate() != null) {
      b.tls(tls.getCaCertificate());
    }
    if (tls.isJvmDefaultTrust()) {
      b.tlsJvmDefaultTrust();
    }
    if (tls.getClientCertificate() != null || tls.getClientKey() != null) {
      b.tlsClientCertificate(tls.getClientCertificate(), tls.getClientKey());
    }
    if (tls.getAuthority() != null) {
      b.tlsAuthority(tls.getAuthority());
    }
    if (etcd.getUser() != null || etcd.getPassword() != null) {
      b.credentials(etcd.getUser(), etcd.getPassword() == null ? null : etcd.getPassword().toCharArray());
    }
    return b.build();
  }

  private static LeaderElector jdbc(LeaseholdProperties p, Environment env) {
    LeaseholdProperties.Jdbc jdbc = p.getJdbc();
    // The elector's session is its own, never a pooled one: it takes the URL, not the DataSource.
    String url = jdbc.getUrl() != null ? jdbc.getUrl() : env.getProperty("spring.datasource.url");
    if (url == null) {
      throw new LeaseholdPropertyException(
          "leasehold.jdbc.url",
          "leasehold.jdbc.url must be a JDBC URL such as jdbc:mariadb://host:3306/db (or set"
              + " spring.datasource.url), but was not set",
          null);
    }
    String user = jdbc.getUsername() != null ? jdbc.getUsername() : env.getProperty("spring.datasource.username");
    String password =
        jdbc.getPassword() != null ? jdbc.getPassword() : env.getProperty("spring.datasource.password");
    JdbcLeaderElector.Builder b =
        common(JdbcLeaderElector.builder(), p)
            .jdbcUrl(url, user, password)
            .createTable(jdbc.isCreateTable())
            .allowRelaxedDurability(jdbc.isAllowRelaxedDurability());
    if (jdbc.getTable() != null) {
      b.table(jdbc.getTable());
    }
    return b.build();
  }

  private static <B extends ElectorConfig.Settings<B>> B common(B b, LeaseholdProperties p) {
    b.electionKey(p.getKey()).leaseTtl(p.getTtl());
    // The context's own shutdown hook closes the elector (SmartLifecycle), not core's.
    b.closeOnShutdown(false);
    if (p.getCandidateId() != null) {
      b.candidateId(p.getCandidateId());
    }
    if (p.getSafetyMargin() != null) {
      b.safetyMargin(p.getSafetyMargin());
    }
    if (p.getMaxDriftRate() != null) {
      b.maxDriftRate(p.getMaxDriftRate());
    }
    if (p.getPollInterval() != null) {
      b.pollInterval(p.getPollInterval());
    }
    if (p.getRpcTimeout() != null) {
      b.rpcTimeout(p.getRpcTimeout());
    }
    if (p.getRetryBackoffInitial() != null || p.getRetryBackoffMax() != null) {
      ElectorConfig defaults = ElectorConfig.builder().electionKey("defaults").build();
      b.retryBackoff(
          p.getRetryBackoffInitial() != null ? p.getRetryBackoffInitial() : defaults.retryBackoffInitial(),
          p.getRetryBackoffMax() != null ? p.getRetryBackoffMax() : defaults.retryBackoffMax());
    }
    if (p.getResignHoldoff() != null) {
      b.resignHoldoff(p.getResignHoldoff());
    }
    if (p.getStandbyLease() != null) {
      b.standbyLease(p.getStandbyLease());
    }
    return b;
  }
}
