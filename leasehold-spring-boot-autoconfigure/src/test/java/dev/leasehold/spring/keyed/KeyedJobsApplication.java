package dev.leasehold.spring.keyed;

import dev.leasehold.Leadership;
import dev.leasehold.spring.CurrentLeadership;
import dev.leasehold.spring.LeaderOnly;
import java.nio.file.Files;
import java.nio.file.Path;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * KeyedJobsApplication is the Boot application {@code SpringKeyedJobsIT} runs in two JVMs: two
 * {@code @Scheduled @LeaderOnly(key = ..., fenced = true)} jobs, each its own election on one
 * shared session, reporting each run on stdout ("@@ RUN id key token"). While the file named by
 * {@code keyed.unready-file} exists, the application is not ready (Boot's readiness state
 * REFUSING_TRAFFIC), which {@code leasehold.health-check.readiness=true} follows. No component
 * scan, so that it and the other test application never pick each other up.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableScheduling
public class KeyedJobsApplication {
  /** main runs the application. */
  public static void main(String[] args) {
    SpringApplication.run(KeyedJobsApplication.class, args);
  }

  /** jobs is the bean with the two keyed jobs. */
  @Bean
  Jobs jobs(@Value("${leasehold.candidate-id}") String id) {
    return new Jobs(id);
  }

  /** readiness follows the unready file, if one is named. */
  @Bean
  Readiness readiness(ApplicationEventPublisher publisher, @Value("${keyed.unready-file:}") String file) {
    return new Readiness(publisher, file);
  }

  /** Readiness publishes REFUSING_TRAFFIC while its file exists, ACCEPTING_TRAFFIC otherwise. */
  public static class Readiness {
    private final ApplicationEventPublisher publisher;
    private final String file;
    private Boolean ready;

    Readiness(ApplicationEventPublisher publisher, String file) {
      this.publisher = publisher;
      this.file = file;
    }

    /** check publishes a change of the file's presence. */
    @Scheduled(fixedDelay = 50)
    public synchronized void check() {
      if (file.isBlank()) {
        return;
      }
      boolean now = !Files.exists(Path.of(file));
      if (!Boolean.valueOf(now).equals(ready)) {
        ready = now;
        AvailabilityChangeEvent.publish(publisher, this,
            now ? ReadinessState.ACCEPTING_TRAFFIC : ReadinessState.REFUSING_TRAFFIC);
        System.out.println("@@ READY " + now);
      }
    }
  }

  /** Jobs holds two leader-only jobs with a key each; public and non-final for the class proxy. */
  public static class Jobs {
    private final String id;

    Jobs(String id) {
      this.id = id;
    }

    /** report runs where the "nightly-report" election is led. */
    @Scheduled(fixedDelay = 100)
    @LeaderOnly(key = "nightly-report", fenced = true)
    public void report() {
      ran("nightly-report");
    }

    /** cleanup runs where the "cleanup" election is led. */
    @Scheduled(fixedDelay = 100)
    @LeaderOnly(key = "cleanup", fenced = true)
    public void cleanup() {
      ran("cleanup");
    }

    private void ran(String key) {
      Leadership term = CurrentLeadership.get();
      System.out.println("@@ RUN " + id + " " + key + " " + term.fencingToken() + " " + term.electionKey());
    }
  }
}
