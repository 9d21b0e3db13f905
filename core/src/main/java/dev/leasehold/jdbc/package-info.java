/**
 * The SQL backend, on PostgreSQL, MariaDB or MySQL: {@link dev.leasehold.jdbc.JdbcLeaderElector} runs the SQL
 * protocol (PROTOCOL.md, section "SQL backend") on the shared runtime, and
 * {@link dev.leasehold.jdbc.JdbcFencing} fences the user's writes with a term's epoch and holder
 * token. It depends on {@code java.sql} only; the user brings the driver.
 *
 * <p>What it does not guarantee: no overlap and token order across a failover of asynchronous
 * or semi-synchronous replication; a hot standby or Galera (refused at start); multi-primary group
 * replication; proxies that multiplex sessions or route statements to replicas, and drivers
 * that reconnect silently; no overlap across a process pause longer than the safety margin, an
 * operator's edit of the row, or a candidate clock outside {@code 1 ± maxDriftRate}. A server
 * clock that stops or steps back only delays takeovers.
 */
package dev.leasehold.jdbc;
