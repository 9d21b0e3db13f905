/**
 * Leasehold's test kit: test leader-only code against real leadership changes on a virtual
 * clock.
 *
 * <ul>
 *   <li>{@link dev.leasehold.test.VirtualTime} and {@link dev.leasehold.test.VirtualStore}: real
 *       electors (core's runtime and etcd protocol machine, on the local store) whose time the
 *       test advances; {@link dev.leasehold.test.VirtualFaults}, the faults in one call each.
 *   <li>{@link dev.leasehold.test.LeaseholdSimulation} and {@link dev.leasehold.test.Simulation}:
 *       the user's leader-only code on simulated instances through seeded schedules of faults,
 *       checked for overlapping terms and the user's invariants, with a replayable seed.
 *   <li>{@code dev.leasehold.test.spring}: the Spring Boot test slice (Spring optional).
 * </ul>
 *
 * <p>Everything runs on the thread that drives the time; see {@link dev.leasehold.test.VirtualTime}
 * for what cannot be simulated.
 */
package dev.leasehold.test;
