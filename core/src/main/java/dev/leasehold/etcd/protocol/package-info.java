/**
 * The etcd protocol (PROTOCOL.md §1–§9, §11) as pure state machines: {@link
 * dev.leasehold.etcd.protocol.ElectionMachine} maps an input and the current monotonic time to
 * commands. No I/O, no threads, no clock reads; protocol-spec's PROTOCOL.md is its
 * normative description, and a unit test fails if this package imports etcd, concurrency
 * utilities or reads a clock.
 */
package dev.leasehold.etcd.protocol;
