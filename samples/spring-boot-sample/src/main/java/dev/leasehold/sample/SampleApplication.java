package dev.leasehold.sample;

import dev.leasehold.spring.LeadershipChangedEvent;
import io.etcd.jetcd.Client;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * SampleApplication runs {@link Dispatcher}'s leader-only job; start several instances against
 * one etcd and only the leader's job runs. Thread-safe, like any Spring configuration.
 */
@SpringBootApplication
@EnableScheduling
public class SampleApplication {
  private static final Logger log = LoggerFactory.getLogger(SampleApplication.class);

  /** main starts the application. */
  public static void main(String[] args) {
    SpringApplication.run(SampleApplication.class, args);
  }

  /** etcd is the application's own client for its guarded writes (the elector has its own). */
  @Bean(destroyMethod = "close")
  Client etcd(@Value("${leasehold.etcd.endpoints}") String[] endpoints) {
    return Client.builder().endpoints(endpoints).build();
  }

  /** onLeadership logs each change of leadership. */
  @EventListener
  void onLeadership(LeadershipChangedEvent e) {
    if (e.isElected() || e.isLost()) {
      log.info("leadership: {} ({}), leader {}", e.isElected() ? "won" : "lost", e.event().cause(),
          e.event().leaderId().orElse("none"));
    }
  }
}
