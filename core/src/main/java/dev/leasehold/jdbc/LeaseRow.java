package dev.leasehold.jdbc;

/**
 * LeaseRow is the lease row as S1 read it.
 *
 * <p>Immutable and thread-safe.
 *
 * @param holder the holder token, or null when the row is released ({@code holder = ''})
 * @param candidate the holder's candidate id, for display only
 * @param epoch the fencing token of the row's last take
 * @param version +1 on every write of the row
 * @param ttlMicros the holder's TTL in microseconds
 * @param expired {@code expires_at <= UTC_TIMESTAMP(6)} on the server's clock at the read
 */
record LeaseRow(
    HolderToken holder, String candidate, long epoch, long version, long ttlMicros, boolean expired) {

  /** released is true when no one holds the row. */
  boolean released() {
    return holder == null;
  }

  /** names is true when the row is held by {@code h}. */
  boolean names(HolderToken h) {
    return holder != null && holder.equals(h);
  }
}
