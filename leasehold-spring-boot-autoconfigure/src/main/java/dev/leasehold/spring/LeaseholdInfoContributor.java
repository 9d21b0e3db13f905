package dev.leasehold.spring;

import dev.leasehold.LeaderElector;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.actuate.info.InfoContributor;

/**
 * LeaseholdInfoContributor adds a {@code leasehold} section to the info endpoint: the backend,
 * election key, candidate id and TTL, and the current role and leader.
 *
 * <p>Thread-safe: it reads the thread-safe elector at each call.
 */
public final class LeaseholdInfoContributor implements InfoContributor {
  private final LeaderElector elector;
  private final LeaseholdProperties.Backend backend;

  /** LeaseholdInfoContributor describes {@code elector}, running on {@code backend}. */
  public LeaseholdInfoContributor(LeaderElector elector, LeaseholdProperties.Backend backend) {
    this.elector = elector;
    this.backend = backend;
  }

  @Override
  public void contribute(Info.Builder builder) {
    Map<String, Object> info = new LinkedHashMap<>();
    info.put("backend", backend == null ? "custom" : backend.name().toLowerCase(java.util.Locale.ROOT));
    info.put("key", elector.config().electionKey());
    info.put("candidateId", elector.config().candidateId());
    info.put("ttl", elector.config().leaseTtl().toString());
    info.put("state", elector.state().name());
    elector.currentLeader().ifPresent(l -> {
      info.put("leaderId", l.candidateId());
      info.put("fencingToken", l.fencingToken());
    });
    builder.withDetail("leasehold", info);
  }
}
