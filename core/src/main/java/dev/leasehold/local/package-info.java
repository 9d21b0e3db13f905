/**
 * The local backend: {@link dev.leasehold.local.LocalStore} is an in-process store with etcd's
 * lease semantics, and {@link dev.leasehold.local.LocalLeaderElector} runs the etcd protocol
 * machine on it, unchanged, on the shared runtime. It is the second implementation of the
 * runtime's store port, for two uses: a single-instance deployment that wants the same code
 * path as a replicated one, and tests of leader-only code, which can inject faults through
 * {@link dev.leasehold.local.LocalFaults} (expire a lease, delete the key, make the store
 * unavailable and bring it back; its Javadoc lists the event each fault produces).
 *
 * <p>What it guarantees: among the electors that share one store, at most one leads a key at
 * a time (a lease expires no earlier than its TTL after the store applied its last renewal,
 * and an elector steps down by its local deadline, before that); fencing tokens (the key's mod
 * revision when a term began) strictly increase; {@code close()} leaves no lease and no key behind.
 *
 * <p>What it does not cover: other processes, other JVMs, or other class loaders with their
 * own {@code LocalStore}; each elects its own leader. It never falls back to "always leader".
 * Nothing is persisted. Deleting the key or expiring a lease by hand lets a new leader in
 * before the old one has heard, as on etcd; fencing ({@code LocalStore.runFenced}) covers it.
 *
 * <p>Every public type states its thread safety.
 */
package dev.leasehold.local;
