/**
 * Leasehold's public API: {@link dev.leasehold.LeaderElector} elects one leader among the
 * instances of a service and reports changes as {@link dev.leasehold.LeadershipEvent}s; the
 * winner gets a {@link dev.leasehold.Leadership} with a fencing token.
 *
 * <p>What this package does not guarantee: that a process paused for longer than the safety
 * margin stops acting in time (guard effects with the fencing token); no overlap after an
 * operator deletes the election key or revokes its lease; anything if the local clock's rate
 * error exceeds {@code maxDriftRate}. Events describe the past; check
 * {@link dev.leasehold.Leadership#isValid()} before each leader-only action.
 */
package dev.leasehold;
