/**
 * Leasehold's test kit: real electors on a virtual clock ({@code VirtualTime}, {@code
 * VirtualStore}), faults in one call each, and a JUnit 5 simulation of the user's own
 * leader-only code under seeded schedules of faults ({@code @LeaseholdSimulation}). Take it in
 * test scope. The engine under it ({@code dev.leasehold.test.engine}) is internal.
 */
module dev.leasehold.test {
  requires transitive dev.leasehold.core;
  requires transitive org.junit.jupiter.api;
  requires org.slf4j;

  exports dev.leasehold.test;
}
