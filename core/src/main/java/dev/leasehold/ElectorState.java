package dev.leasehold;

/**
 * ElectorState is the role an elector plays in the election; the lifecycle (not started,
 * running, closed) is a separate axis, except that a closed elector is {@link #STOPPED}.
 *
 * <pre>
 *             key absent              campaign succeeded
 *  FOLLOWER ─────────────▶ CANDIDATE ─────────────────▶ MASTER
 *     ▲  ▲                     │                          │
 *     │  └─────────────────────┘ campaign lost / error    │ deadline, key deleted or taken,
 *     └───────────────────────────────────────────────────┘ lease gone, resign()
 *  any state ── close() ──▶ STOPPED (terminal)
 * </pre>
 *
 * <p>Immutable and thread-safe (an enum).
 */
public enum ElectorState {
  /** FOLLOWER knows the current leader (or that there is none) and watches for the key to go. */
  FOLLOWER,
  /** CANDIDATE is granting a lease and trying the compare-and-swap that takes the key. */
  CANDIDATE,
  /** MASTER holds the key through its lease; it leads while its local deadline has not passed. */
  MASTER,
  /** STOPPED is terminal: the elector was closed and holds no lease and no key. */
  STOPPED
}
