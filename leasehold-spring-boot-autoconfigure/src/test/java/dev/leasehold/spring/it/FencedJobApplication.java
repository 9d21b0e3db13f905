package dev.leasehold.spring.it;

import dev.leasehold.Leadership;
import dev.leasehold.etcd.EtcdFencing;
import dev.leasehold.spring.CurrentLeadership;
import dev.leasehold.spring.LeaderOnly;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * FencedJobApplication is the Boot application {@code SpringTwoJvmFailoverIT} runs in two JVMs:
 * a {@code @Scheduled @LeaderOnly(fenced = true)} job whose every run writes to etcd in a
 * transaction guarded by its term's fencing token, and reports on stdout ("@@ ..." lines).
 */
@SpringBootApplication
@EnableScheduling
public class FencedJobApplication {
  /** main runs the application. */
  public static void main(String[] args) {
    SpringApplication.run(FencedJobApplication.class, args);
  }

  /** jobClient is the application's own etcd client, for the guarded writes. */
  @Bean(destroyMethod = "close")
  Client jobClient(@Value("${leasehold.etcd.endpoints}") String[] endpoints) {
    return Client.builder().endpoints(endpoints).build();
  }

  /** job is the leader-only job. */
  @Bean
  FencedJob job(Client jobClient, @Value("${leasehold.candidate-id}") String id, @Value("${job.prefix}") String prefix) {
    return new FencedJob(jobClient, id, prefix);
  }

  /** onWebServer tells the test the random port. */
  @EventListener
  void onWebServer(WebServerInitializedEvent e) {
    System.out.println("@@ PORT " + e.getWebServer().getPort());
  }

  /** FencedJob runs on the leader only; public and non-final for the class proxy. */
  public static class FencedJob {
    private final Client client;
    private final String id;
    private final String prefix;
    private long seq;

    FencedJob(Client client, String id, String prefix) {
      this.client = client;
      this.id = id;
      this.prefix = prefix;
    }

    /** run does one unit of leader-only work: a write etcd accepts only from the current term. */
    @Scheduled(fixedDelay = 100)
    @LeaderOnly(fenced = true)
    public void run() throws Exception {
      Leadership term = CurrentLeadership.get();
      long n = ++seq;
      long start = System.nanoTime();
      System.out.println("@@ START " + id + " " + term.fencingToken() + " " + n + " " + start);
      Thread.sleep(20); // the work itself
      String key = prefix + String.format("%012d/%06d", term.fencingToken(), n);
      TxnResponse r =
          client.getKVClient().txn()
              .If(EtcdFencing.isCurrentTerm(term))
              .Then(Op.put(bytes(key), bytes(id), PutOption.DEFAULT))
              .commit().get(2, TimeUnit.SECONDS);
      System.out.println("@@ END " + id + " " + term.fencingToken() + " " + n + " " + start + " "
          + System.nanoTime() + " " + r.isSucceeded());
    }

    private static ByteSequence bytes(String s) {
      return ByteSequence.from(s, StandardCharsets.UTF_8);
    }
  }
}
