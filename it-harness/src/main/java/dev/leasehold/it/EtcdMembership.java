package dev.leasehold.it;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.cluster.Member;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * EtcdMembership changes an etcd cluster's membership through etcd's Cluster API (MemberRemove, MemberAdd), as an
 * operator replacing a member would, retrying until etcd accepts the change.
 *
 * <p>etcd refuses a change while the members asked have no leader, and, with its default
 * {@code --strict-reconfig-check}, a MemberAdd until the leader has been connected to every member for 5 s (a
 * MemberRemove until that leaves a quorum connected): right after a partition heals or a leader changes, a change
 * has to wait. Each call retries every {@value #RETRY_MILLIS} ms until its deadline. Stateless; thread-safe.
 */
final class EtcdMembership {
    private static final Logger log = LoggerFactory.getLogger(EtcdMembership.class);
    private static final long RETRY_MILLIS = 200;
    // A MemberRemove of the leader may never be answered (it stops applying its own removal): retry soon.
    private static final long CALL_SECONDS = 2;

    private EtcdMembership() {}

    /**
     * remove removes the member named {@code name} through {@code client}; a member already gone counts as removed
     * (a MemberRemove that succeeded but whose answer was lost).
     *
     * @throws IllegalStateException with etcd's last answer when it has not accepted the removal within
     *     {@code timeout}
     */
    static void remove(Client client, String name, Duration timeout) {
        retry("remove " + name, timeout, () -> {
            Optional<Member> member = list(client).stream().filter(m -> m.getName().equals(name)).findFirst();
            if (member.isPresent()) {
                client.getClusterClient().removeMember(member.get().getId()).get(CALL_SECONDS, TimeUnit.SECONDS);
            }
            return null;
        });
    }

    /**
     * add adds a member that will advertise {@code peerUrl} and be named {@code name}, through {@code client}, and
     * returns the {@code --initial-cluster} value it must start with: every member, itself included, as
     * {@code name=peerURL}. A member with that peer URL already there counts as added (an answer lost).
     *
     * @throws IllegalStateException with etcd's last answer when it has not accepted the member within
     *     {@code timeout}
     */
    static String add(Client client, String name, String peerUrl, Duration timeout) {
        URI peer = URI.create(peerUrl);
        return retry("add " + name + " at " + peerUrl, timeout, () -> {
            List<Member> now = list(client);
            if (now.stream().noneMatch(m -> m.getPeerURIs().contains(peer))) {
                now = client.getClusterClient().addMember(List.of(peer)).get(CALL_SECONDS, TimeUnit.SECONDS)
                        .getMembers();
            }
            List<String> initialCluster = new ArrayList<>();
            for (Member m : now) {
                // A member that never started has no name yet; etcd matches the others by peer URL.
                String memberName = m.getPeerURIs().contains(peer) ? name
                        : m.getName().isEmpty() ? Long.toHexString(m.getId()) : m.getName();
                for (URI u : m.getPeerURIs()) {
                    initialCluster.add(memberName + "=" + u);
                }
            }
            return String.join(",", initialCluster);
        });
    }

    private static List<Member> list(Client client) throws Exception {
        return client.getClusterClient().listMember().get(CALL_SECONDS, TimeUnit.SECONDS).getMembers();
    }

    private interface Call<T> {
        T call() throws Exception;
    }

    private static <T> T retry(String what, Duration timeout, Call<T> call) {
        long start = System.nanoTime();
        long end = start + timeout.toNanos();
        Exception refused = null;
        for (int attempt = 1; ; attempt++) {
            try {
                T done = call.call();
                if (refused != null) {
                    log.info("etcd accepted {} at attempt {}, {} ms after the first; it had refused: {}", what, attempt,
                            (System.nanoTime() - start) / 1_000_000, refused.toString());
                }
                return done;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(what + ": interrupted", e);
            } catch (Exception e) {
                refused = e;
                if (System.nanoTime() - end > 0) {
                    throw new IllegalStateException("etcd did not accept " + what + " within " + timeout + ": " + e, e);
                }
            }
            EtcdMember.sleepQuietly(RETRY_MILLIS);
        }
    }
}
