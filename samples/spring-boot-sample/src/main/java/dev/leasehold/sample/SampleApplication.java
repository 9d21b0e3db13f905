package dev.leasehold.sample;

import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.spring.LeadershipChangedEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * SampleApplication runs {@link Dispatcher}'s leader-only job; start several instances against
 * one etcd and only the leader's job runs. Each instance logs every change of leadership it
 * sees, naming the instance that leads and its fencing token. The jetcd {@code Client} the job
 * writes with is the starter's, made from {@code leasehold.etcd.*}. Thread-safe, like any
 * Spring configuration.
 */
@SpringBootApplication
@EnableScheduling
public class SampleApplication {
  private static final Logger log = LoggerFactory.getLogger(SampleApplication.class);

  /** SampleApplication is created by Spring. */
  public SampleApplication() {}

  /**
   * main starts the application.
   *
   * @param args Spring Boot's arguments, such as {@code --leasehold.candidate-id=sample-0}
   */
  public static void main(String[] args) {
    SpringApplication.run(SampleApplication.class, args);
  }

  /** onLeadership logs each change of leadership: who leads now, with the term's fencing token. */
  @EventListener
  void onLeadership(LeadershipChangedEvent e) {
    String me = e.elector().config().candidateId();
    LeadershipEvent ev = e.event();
    if (e.isElected()) {
      log.info("{} leads now (fencing token {})", me, ev.fencingToken().orElseThrow());
    } else if (e.isLost()) {
      log.info("{} stopped leading ({})", me, ev.cause());
    } else if (ev.cause() == Cause.LEADER_CHANGED || ev.cause() == Cause.SUBSCRIBED) {
      ev.leader().ifPresent(l ->
          log.info("{} follows: {} leads (fencing token {})", me, l.candidateId(), l.fencingToken()));
    }
  }
}
