package dev.leasehold.etcd;

import dev.leasehold.Participant;
import dev.leasehold.etcd.protocol.EtcdInput;
import dev.leasehold.etcd.protocol.KeyRecord;
import dev.leasehold.runtime.Input;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdException;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Op;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * EtcdRecords maps what etcd returns (key-values of reads, transactions and watch events) to the
 * machine's records: the election key as a {@link KeyRecord}, participant keys as
 * {@link Participant}s (PROTOCOL.md §4.5), a campaign's reply to its input, and the failures the
 * driver tells apart. Stateless and thread-safe.
 */
final class EtcdRecords {
  /** QUEUE_ORDER is the queue's order: ascending mod revision (the head first). */

  private EtcdRecords() {}

  /** first is the key a single-key read found, or null when it found none. */
  static KeyRecord first(GetResponse r) {
    return r.getKvs().isEmpty() ? null : record(r.getKvs().get(0));
  }

  /** record is the election key as etcd holds it. */
  static KeyRecord record(KeyValue kv) {
    return new KeyRecord(
        kv.getValue().toString(StandardCharsets.UTF_8),
        kv.getLease(),
        kv.getCreateRevision(),
        kv.getModRevision());
  }

  /**
   * participants are the participant keys of {@code electionKey} a prefix read found, in queue
   * order; other keys under the prefix are left out (see {@link #participant}).
   */
  static List<Participant> participants(String electionKey, GetResponse r) {
    List<Participant> out = new ArrayList<>(r.getKvs().size());
    for (KeyValue kv : r.getKvs()) {
      Participant p = participant(electionKey, kv);
      if (p != null) {
        out.add(p);
      }
    }
    out.sort(Participant.ORDER);
    return out;
  }

  /**
   * participant is the participant a key-value of the prefix spells, or null when it is none:
   * a name that is not one {@link Participant#keyOf(String, long, int)} writes, or a key not bound to the lease its name
   * spells (only an operator can write one, and it would not go with that lease).
   */
  static Participant participant(String electionKey, KeyValue kv) {
    long leaseId = leaseOf(electionKey, kv);
    if (leaseId == 0 || kv.getLease() != leaseId) {
      return null;
    }
    return new Participant(
        kv.getValue().toString(StandardCharsets.UTF_8),
        leaseId,
        kv.getCreateRevision(),
        kv.getModRevision(),
        Participant.priorityOf(electionKey, kv.getKey().toString(StandardCharsets.UTF_8)));
  }

  /**
   * leaseOf is the lease id a participant key's name spells, or 0 when it is not one; only the
   * exact spelling {@link Participant#keyOf} writes counts (not upper-case hex, say), since the
   * handover's compare names the key by that spelling.
   */
  static long leaseOf(String electionKey, KeyValue kv) {
    String key = kv.getKey().toString(StandardCharsets.UTF_8);
    long leaseId = Participant.leaseOf(electionKey, key);
    int priority = Participant.priorityOf(electionKey, key);
    return leaseId > 0 && Participant.keyOf(electionKey, leaseId, priority).equals(key) ? leaseId : 0;
  }

  /** campaignResult is the campaign's outcome: won at the transaction's revision, or lost to the holder its Else branch read. */
  static Input campaignResult(long op, TxnResponse r) {
    long revision = r.getHeader().getRevision();
    if (r.isSucceeded()) {
      // A put that creates a key creates it at the transaction's revision.
      return new EtcdInput.CampaignWon(op, revision);
    }
    KeyRecord holder = r.getGetResponses().isEmpty() ? null : first(r.getGetResponses().get(0));
    return new EtcdInput.CampaignLost(op, holder, revision);
  }

  /** enlistingCampaignResult is the answer of a campaign whose Else branch also put the participant key. */
  static Input enlistingCampaignResult(long op, TxnResponse r) {
    long revision = r.getHeader().getRevision();
    if (r.isSucceeded()) {
      return new EtcdInput.CampaignWon(op, revision);
    }
    KeyRecord holder = first(r.getGetResponses().get(0));
    return new EtcdInput.CampaignLost(op, holder, revision, true);
  }

  /** unwrap is the cause inside jetcd's and the JDK's wrappers. */
  static Throwable unwrap(Throwable e) {
    while ((e instanceof CompletionException || e instanceof ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  /** isLeaseNotFound tells whether etcd answered that the lease does not exist. */
  static boolean isLeaseNotFound(Throwable e) {
    Throwable t = unwrap(e);
    if (t instanceof EtcdException ee && ee.getErrorCode() == ErrorCode.NOT_FOUND) {
      return true;
    }
    String m = t.getMessage();
    return m != null && m.contains("requested lease not found");
  }

  /**
   * read sends {@code ops} as one read-only transaction: etcd serves it as it serves a range (a
   * linearizable read, no raft proposal), but jetcd retries a failed {@code get} by the client's
   * own policy (UNAVAILABLE: a member's {@code no leader}, a refused connection; 500 ms, then
   * 1 s, at jetcd's defaults) and never a transaction. Behind such retries a failure reached
   * neither the machine's retry nor the hedge, and on a caller's client with jetcd's defaults a
   * MASTER's renewal could lose its slack to them during an etcd leader election. Every read
   * the elector and a session make goes through here.
   */
  static CompletableFuture<TxnResponse> read(Client c, Op... ops) {
    return c.getKVClient().txn().Then(ops).commit();
  }
}
