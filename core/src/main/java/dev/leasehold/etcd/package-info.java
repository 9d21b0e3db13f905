/**
 * The etcd driver: {@link dev.leasehold.etcd.EtcdLeaderElector} runs the protocol machine on
 * one event-loop thread per elector and turns its commands into jetcd calls;
 * {@link dev.leasehold.etcd.EtcdFencing} turns a fencing token into an etcd compare.
 *
 * <p>Tested against etcd 3.4.23. Renewals use {@code keepAliveOnce} (one short stream per
 * renewal) so the driver knows each renewal's send time; jetcd's own keep-alive helper hides
 * it and measures deadlines from reply time.
 *
 * <p>An elector built from endpoints makes its own client at start, with the builder's TLS (PEM
 * files read at build) and credentials, and with jetcd's wait-for-ready off, so that a refused
 * connection, handshake or password fails the call with its reason instead of a timeout.
 */
package dev.leasehold.etcd;
