package dev.leasehold.etcd.protocol;

import dev.leasehold.ElectorState;
import dev.leasehold.runtime.Machine;

/**
 * MasterTerm reads a machine's current term off what it reports after a step, as the runtime
 * does: while MASTER, its leader is this instance, with the term's token and lease; otherwise it
 * has no term (0).
 */
final class MasterTerm {
  private MasterTerm() {}

  static long token(Machine m) {
    return m.role() == ElectorState.MASTER ? m.leader().fencingToken() : 0;
  }

  static long leaseId(Machine m) {
    return m.role() == ElectorState.MASTER ? m.leader().leaseId() : 0;
  }
}
