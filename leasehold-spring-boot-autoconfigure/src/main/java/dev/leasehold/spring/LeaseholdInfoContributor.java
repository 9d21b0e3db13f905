package dev.leasehold.spring;

import dev.leasehold.LeaderElector;
import dev.leasehold.select.Backend;
import dev.leasehold.select.FallbackElector;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.actuate.info.InfoContributor;

/**
 * LeaseholdInfoContributor adds a {@code leasehold} section to the info endpoint: the backends
 * and fallback policy, the election key, candidate id and TTL, and the current role and leader.
 *
 * <p>Thread-safe: it reads the thread-safe elector at each call.
 */
public final class LeaseholdInfoContributor implements InfoContributor {
  private final LeaderElector elector;

  /**
   * LeaseholdInfoContributor describes {@code elector}.
   *
   * @param elector the elector described
   */
  public LeaseholdInfoContributor(LeaderElector elector) {
    this.elector = elector;
  }

  @Override
  public void contribute(Info.Builder builder) {
    Map<String, Object> info = new LinkedHashMap<>();
    if (elector instanceof FallbackElector f) {
      info.put("backends", f.backends().stream().map(Backend::propertyName).toList());
      info.put("fallback", f.policy().propertyName());
      info.put("activeBackend", f.activeBackend().propertyName());
    }
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
