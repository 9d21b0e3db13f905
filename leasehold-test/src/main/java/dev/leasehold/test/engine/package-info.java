/**
 * The simulation engine under the test kit, shared with Leasehold's own protocol simulation:
 * the event queue in virtual time, drifting clocks, and a candidate's threads as events. Internal:
 * the kit's module does not export it, and it may change in any release; use {@code
 * dev.leasehold.test}.
 */
package dev.leasehold.test.engine;
