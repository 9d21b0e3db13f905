package dev.leasehold.etcd.protocol;

import dev.leasehold.LeaderInfo;
import dev.leasehold.runtime.Roles;

/**
 * KeyView is what this instance knows of the election key, shared by every role: whether it is
 * absent, the latest revision seen, the lease this instance last gave up (until etcd deletes its
 * key, that key names no leader), and the token of the last term it gave up or handed over (a
 * key bound to its lease at that revision is the old term's, not a handover to it, PROTOCOL.md
 * §4.5). The leader seen is kept with the events that carry it, by {@link Roles}; the view reads
 * it from there.
 *
 * <p>Roles change the view only through the methods below, each named for what happened.
 *
 * <p>Not thread-safe: owned by one {@link ElectionMachine}.
 */
final class KeyView {
  private final Roles roles;
  private boolean absent;
  private long knownRevision;
  private long abandonedLease;
  private long givenUpToken;

  KeyView(Roles roles) {
    this.roles = roles;
  }

  /** leader is the leader last seen (this instance while MASTER), or null. */
  LeaderInfo leader() {
    return roles.leader();
  }

  /** absent is true when the last view of the key showed none. */
  boolean absent() {
    return absent;
  }

  /** knownRevision is the latest revision seen in a reply or event (0 before the first). */
  long knownRevision() {
    return knownRevision;
  }

  /** isBefore tells whether {@code revision} is older than what is already known. */
  boolean isBefore(long revision) {
    return revision < knownRevision;
  }

  /** noteRevision records a revision seen in a reply or event, keeping the latest. */
  void noteRevision(long revision) {
    knownRevision = Math.max(knownRevision, revision);
  }

  /**
   * saw records a read's or watch event's view of the key ({@code key} null when absent) at
   * {@code revision}; false, and nothing recorded, when it is older than what is known.
   */
  boolean saw(KeyRecord key, long revision) {
    if (isBefore(revision)) {
      return false;
    }
    knownRevision = revision;
    absent = key == null;
    return true;
  }

  /**
   * handedTo tells whether {@code key} is bound to {@code ownLease} after every term this
   * instance gave up: a handover to it, or a campaign of its applied after all (§4.5).
   */
  boolean handedTo(KeyRecord key, long ownLease) {
    return key != null && ownLease != 0 && key.leaseId() == ownLease && key.token() > givenUpToken;
  }

  /**
   * holder is the leader {@code key} names: none when absent, or bound to {@code ownLease} (0:
   * none held) or to the lease this instance gave up.
   */
  LeaderInfo holder(KeyRecord key, long ownLease) {
    if (key == null || ownLease != 0 && key.leaseId() == ownLease || key.leaseId() == abandonedLease) {
      return null;
    }
    return ElectionMachine.info(key);
  }

  /** abandoned records the lease this instance gave up; a key still bound to it names no leader. */
  void abandoned(long lease) {
    abandonedLease = lease;
  }

  /**
   * termEnded records that the term {@code token} ended with the key left to others (handed
   * over, or lost with its lease): not known to be absent, and never this instance's again.
   */
  void termEnded(long token) {
    givenUpToken = token;
    absent = false;
  }

  /** deleted records that the MASTER saw its key deleted. */
  void deleted() {
    absent = true;
  }
}
