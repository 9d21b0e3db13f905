package dev.leasehold.sample;

import dev.leasehold.Leadership;
import dev.leasehold.etcd.EtcdFencing;
import dev.leasehold.spring.CurrentLeadership;
import dev.leasehold.spring.LeaderOnly;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Dispatcher is the leader-only job: every second, on the leader only, it "dispatches a batch",
 * recording it in etcd with a write that etcd refuses if this instance's term has ended.
 *
 * <p>Not thread-safe on its own; Spring's scheduler runs {@link #dispatch()} on one thread at
 * a time.
 */
@Component
public class Dispatcher {
  private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);

  private final Client etcd;
  private final ByteSequence lastBatch;
  private long batch;

  /** Dispatcher writes with {@code etcd}, the starter's client, to {@code lastBatchKey}. */
  Dispatcher(Client etcd, @Value("${sample.last-batch-key}") String lastBatchKey) {
    this.etcd = etcd;
    this.lastBatch = ByteSequence.from(lastBatchKey, StandardCharsets.UTF_8);
  }

  /** dispatch runs on every instance's scheduler, and does its work only on the leader's. */
  @Scheduled(fixedDelay = 1000)
  @LeaderOnly(fenced = true)
  public void dispatch() throws Exception {
    Leadership term = CurrentLeadership.get();
    batch++;
    ByteSequence value = ByteSequence.from(term.candidateId() + " batch " + batch, StandardCharsets.UTF_8);
    boolean accepted =
        etcd.getKVClient().txn()
            .If(EtcdFencing.isCurrentTerm(term))                 // ModRevision(key) == token
            .Then(Op.put(lastBatch, value, PutOption.DEFAULT))
            .commit().get(2, TimeUnit.SECONDS).isSucceeded();
    log.info("batch {} dispatched by {} (fencing token {}, {} ms left): etcd {} it", batch,
        term.candidateId(), term.fencingToken(), term.timeLeft().toMillis(),
        accepted ? "accepted" : "refused");
  }
}
