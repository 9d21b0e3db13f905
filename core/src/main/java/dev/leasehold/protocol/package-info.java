/**
 * The Leasehold protocol as a pure state machine: {@link
 * dev.leasehold.protocol.ElectionMachine} maps an input and the current monotonic time to
 * commands. No I/O, no threads, no clock reads; protocol-spec's PROTOCOL.md is its
 * normative description, and a unit test fails if this package imports etcd, concurrency
 * utilities or reads a clock.
 */
package dev.leasehold.protocol;
