/**
 * Leasehold's test kit: real electors on a virtual clock ({@code VirtualTime}, {@code
 * VirtualStore}), faults in one call each, a JUnit 5 simulation of the user's own leader-only
 * code under seeded schedules of faults ({@code @LeaseholdSimulation}), and a Spring test slice
 * ({@code @LeaseholdTest}; Spring is an optional dependency). Take it in test scope. The engine
 * under it ({@code dev.leasehold.test.engine}) is internal.
 */
module dev.leasehold.test {
  requires transitive dev.leasehold.core;
  requires transitive org.junit.jupiter.api;
  requires org.slf4j;
  // Optional: only the Spring test slice uses them.
  requires static spring.beans;
  requires static transitive spring.context;
  requires static spring.core;

  exports dev.leasehold.test;
  exports dev.leasehold.test.spring;
  // Spring reads the slice's configuration class reflectively.
  opens dev.leasehold.test.spring to spring.core, spring.beans, spring.context;
}
