package dev.leasehold.etcd;

import dev.leasehold.Leadership;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Txn;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * EtcdFencing turns a {@link Leadership}'s fencing token into etcd compares, so a write made
 * by a leader that has since been replaced is refused by etcd itself.
 *
 * <p>The compare is {@code CreateRevision(electionKey) == fencingToken}: the key's current
 * incarnation is the one this term created. Stateless and thread-safe.
 */
public final class EtcdFencing {
  private EtcdFencing() {}

  /** isCurrentTerm is the compare that holds only while the given term's key still exists. */
  public static Cmp isCurrentTerm(Leadership leadership) {
    Objects.requireNonNull(leadership, "leadership");
    return new Cmp(
        ByteSequence.from(leadership.electionKey(), StandardCharsets.UTF_8),
        Cmp.Op.EQUAL,
        CmpTarget.createRevision(leadership.fencingToken()));
  }

  /**
   * guard adds {@link #isCurrentTerm} to the transaction's compares and returns it; call it
   * before {@code Then}, as jetcd accepts no compare after it.
   */
  public static Txn guard(Txn txn, Leadership leadership) {
    Objects.requireNonNull(txn, "txn");
    return txn.If(isCurrentTerm(leadership));
  }
}
