package dev.leasehold.jdbc;

import java.util.ArrayList;
import java.util.List;

/**
 * Orphans are this process's attempts and terms that may still name the row although it no
 * longer plays them: a take whose outcome is unknown, or a term whose S5 has not been seen to
 * succeed. An S1 that shows one is followed by S5 for it; such a row names no leader and is
 * never waited on. An orphan is forgotten once its S5 succeeds, or once a read shows it can no
 * longer name the row: a take applies only to the row it was based on (S3 compares the version,
 * which only grows; S2 only inserts a missing row), and nothing but our own take writes our
 * token.
 *
 * <p>Not thread-safe: owned by one {@link SqlMachine}.
 */
final class Orphans {
  /**
   * Orphan is one of them.
   *
   * @param holder its holder token
   * @param epoch the epoch the row would have under it (S5 compares it)
   * @param take true for a take attempt, false for a term that ended
   * @param basis a take's S1 row (null for S2)
   */
  record Orphan(HolderToken holder, long epoch, boolean take, LeaseRow basis) {}

  private final List<Orphan> orphans = new ArrayList<>();

  /** add keeps an attempt or term (replacing one with the same token). */
  void add(Orphan o) {
    remove(o.holder());
    orphans.add(o);
  }

  /** remove forgets the orphan with this token. */
  void remove(HolderToken h) {
    orphans.removeIf(o -> o.holder().equals(h));
  }

  /** contains tells whether {@code h} is one of them. */
  boolean contains(HolderToken h) {
    return h != null && orphans.stream().anyMatch(o -> o.holder().equals(h));
  }

  /** all is a copy of the list, oldest first. */
  List<Orphan> all() {
    return List.copyOf(orphans);
  }

  /** prune forgets the orphans that {@code row} (null: no row) shows can no longer name it. */
  void prune(LeaseRow row) {
    orphans.removeIf(o -> !mayStillName(o, row));
  }

  private static boolean mayStillName(Orphan o, LeaseRow row) {
    if (row != null && row.names(o.holder())) {
      return true;
    }
    if (!o.take()) {
      return false;
    }
    if (o.basis() == null) {
      // S2 inserts only where no row is; a row exists now, and no statement deletes one.
      return row == null;
    }
    // S3 changes only the row it read, which is still there unchanged.
    return row != null
        && row.version() == o.basis().version()
        && java.util.Objects.equals(row.holder(), o.basis().holder());
  }
}
