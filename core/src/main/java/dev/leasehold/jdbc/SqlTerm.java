package dev.leasehold.jdbc;

import dev.leasehold.runtime.Term;

/**
 * SqlTerm is what a SQL term's {@code Leadership} keeps for {@link JdbcFencing#guard}: the
 * row (table and name) and the holder token and epoch that S7 must find in it. {@link SqlMaster}
 * hands it over once, in the term's {@link Term}.
 *
 * <p>Immutable and thread-safe.
 *
 * @param table the lease table's name as configured
 * @param name the election name (the row's primary key)
 * @param holder the term's holder token
 * @param epoch the term's fencing token
 * @param ttlMillis the TTL: on PostgreSQL, the longest a guarded transaction may sit idle
 */
record SqlTerm(String table, String name, HolderToken holder, long epoch, long ttlMillis) implements Term.Detail {}
