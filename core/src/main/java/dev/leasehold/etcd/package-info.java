/**
 * The etcd driver: {@link dev.leasehold.etcd.EtcdLeaderElector} runs the protocol machine on
 * one event-loop thread per elector and turns its commands into jetcd calls;
 * {@link dev.leasehold.etcd.EtcdFencing} turns a fencing token into an etcd compare.
 *
 * <p>Tested against etcd 3.4.23. Renewals use {@code keepAliveOnce} (one short stream per
 * renewal) so the driver knows each renewal's send time; jetcd's own keep-alive helper hides
 * it and measures deadlines from reply time.
 */
package dev.leasehold.etcd;
