package dev.leasehold.it;

import dev.leasehold.Leadership;
import dev.leasehold.etcd.EtcdFencing;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * EtcdCounterWorkload reads the counter key, thinks, and writes counter+1 in a transaction
 * guarded by {@link EtcdFencing#guard} and by a compare on the counter's mod revision; the
 * stored value is {@code "<n> <id> <token> <seq>"}, so etcd's history names the attempt behind
 * each write. Thread-safe as {@link CounterWorkload} says.
 */
final class EtcdCounterWorkload extends CounterWorkload {
  private final KV kv;
  private final ByteSequence electionKey;
  private final ByteSequence counterKey;
  private final long timeoutMillis;

  EtcdCounterWorkload(KV kv, String electionKey, String counterKey, String id, long thinkMillis,
      Duration rpcTimeout, PrintStream out) {
    super(id, thinkMillis, out);
    this.kv = kv;
    this.electionKey = ByteSequence.from(electionKey, StandardCharsets.UTF_8);
    this.counterKey = ByteSequence.from(counterKey, StandardCharsets.UTF_8);
    this.timeoutMillis = rpcTimeout.toMillis();
  }

  @Override
  void attempt(Leadership l) throws InterruptedException {
    long check = System.nanoTime();
    if (!l.isValid()) {
      return;
    }
    GetResponse read;
    try {
      read = kv.get(counterKey).get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      if (e instanceof InterruptedException ie) {
        throw ie;
      }
      sleep(50);
      return;
    }
    long current = 0;
    long modRevision = 0;
    if (!read.getKvs().isEmpty()) {
      KeyValue kvs = read.getKvs().get(0);
      current = Long.parseLong(kvs.getValue().toString(StandardCharsets.UTF_8).split(" ")[0]);
      modRevision = kvs.getModRevision();
    }
    if (thinkMillis > 0) {
      Thread.sleep(thinkMillis);
    }
    long token = l.fencingToken();
    long n = nextSeq();
    long next = current + 1;
    String value = next + " " + id + " " + token + " " + n;
    long send = sent(token, n);
    String outcome;
    long shown = next;
    try {
      TxnResponse r =
          EtcdFencing.guard(kv.txn(), l)
              .If(new Cmp(counterKey, Cmp.Op.EQUAL, CmpTarget.modRevision(modRevision)))
              .Then(Op.put(counterKey, ByteSequence.from(value, StandardCharsets.UTF_8), PutOption.DEFAULT))
              .Else(Op.get(electionKey, GetOption.DEFAULT), Op.get(counterKey, GetOption.DEFAULT))
              .commit()
              .get(timeoutMillis, TimeUnit.MILLISECONDS);
      if (r.isSucceeded()) {
        outcome = "OK";
      } else {
        List<KeyValue> election = r.getGetResponses().get(0).getKvs();
        List<KeyValue> found = r.getGetResponses().get(1).getKvs();
        boolean ours = !election.isEmpty() && election.get(0).getModRevision() == token;
        outcome = ours ? "CONFLICT" : "FENCED";
        shown = found.isEmpty() ? 0
            : Long.parseLong(found.get(0).getValue().toString(StandardCharsets.UTF_8).split(" ")[0]);
      }
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      outcome = "ERROR";
    }
    written(check, send, token, outcome, shown, n);
  }
}
