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
 * <p>The compare is {@code ModRevision(electionKey) == fencingToken}: the key is still as this
 * term wrote it. A term's token is the key's mod revision when the term began: the revision of
 * the campaign that created the key (then also its create revision), or of the handover that
 * put it on this leader's lease (PROTOCOL.md §4.5). Nobody writes the key during a term, so the
 * compare fails once the key is deleted, taken, or handed over to the next leader, and never
 * holds again for this term. Stateless and thread-safe.
 */
public final class EtcdFencing {
  private EtcdFencing() {}

  /**
   * isCurrentTerm is the compare that holds only while the election key is still as the given
   * term wrote it: neither deleted nor written since.
   *
   * @param leadership the term that must still hold the key, from this elector
   * @return a compare on the key's mod revision, to add to a transaction of the caller's
   */
  public static Cmp isCurrentTerm(Leadership leadership) {
    Objects.requireNonNull(leadership, "leadership");
    return new Cmp(
        ByteSequence.from(leadership.electionKey(), StandardCharsets.UTF_8),
        Cmp.Op.EQUAL,
        CmpTarget.modRevision(leadership.fencingToken()));
  }

  /**
   * guard adds {@link #isCurrentTerm} to the transaction's compares and returns it; call it
   * before {@code Then}, as jetcd accepts no compare after it.
   *
   * @param txn the caller's transaction, with no {@code Then} yet
   * @param leadership the term that must still hold the key
   * @return {@code txn}, for chaining its {@code Then}
   */
  public static Txn guard(Txn txn, Leadership leadership) {
    Objects.requireNonNull(txn, "txn");
    return txn.If(isCurrentTerm(leadership));
  }
}
