package dev.leasehold.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.kv.GetResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class EtcdClusterIT {

    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final HttpClient HTTP = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofMillis(500))
            .build();

    @RegisterExtension
    static final EtcdClusterExtension ETCD = EtcdClusterExtension.members(3);

    @Test
    void a_one_member_cluster_starts_and_answers_a_jetcd_put_and_get() throws Exception {
        try (EtcdCluster cluster = EtcdCluster.start(1)) {
            assertEquals(1, cluster.members().size());
            assertEquals(List.of(cluster.member(0).clientEndpoint()), cluster.clientEndpoints());
            assertTrue(cluster.leader().isPresent(), "a started cluster has a leader");

            Client client = Client.builder().endpoints(cluster.clientEndpoints().toArray(String[]::new)).build();
            try {
                ByteSequence key = ByteSequence.from("leasehold/it/key", UTF_8);
                client.getKVClient().put(key, ByteSequence.from("value", UTF_8)).get(10, TimeUnit.SECONDS);
                GetResponse response = client.getKVClient().get(key).get(10, TimeUnit.SECONDS);
                assertEquals(1, response.getKvs().size());
                assertEquals("value", response.getKvs().get(0).getValue().toString(UTF_8));
            } finally {
                client.close();
            }
        }
    }

    @Test
    void a_three_member_cluster_elects_a_leader_that_leader_finds() {
        EtcdCluster cluster = ETCD.cluster();
        assertEquals(3, cluster.members().size());
        assertEquals(3, cluster.clientEndpoints().stream().distinct().count(), "every member has its own port");
        assertEquals(String.join(",", cluster.clientEndpoints()), cluster.clientEndpointsCsv());
        for (int i = 0; i < 3; i++) {
            EtcdMember member = cluster.member(i);
            assertEquals("EtcdClusterIT-" + i, member.name());
            assertTrue(member.isRunning());
            assertFalse(member.isPaused());
            assertTrue(member.pid() > 0);
        }

        EtcdMember leader = cluster.awaitLeader(WAIT);

        assertEquals(Optional.of(leader), cluster.leader());
    }

    @Test
    void killing_the_leader_elects_another_and_start_brings_the_killed_member_back() throws Exception {
        EtcdCluster cluster = ETCD.cluster();
        try {
            EtcdMember oldLeader = cluster.awaitLeader(WAIT);
            long oldPid = oldLeader.pid();

            oldLeader.kill();

            assertFalse(oldLeader.isRunning());
            assertEquals(-1, oldLeader.pid());
            assertFalse(ProcessHandle.of(oldPid).map(ProcessHandle::isAlive).orElse(false));
            await().atMost(WAIT).until(() -> cluster.leader().filter(l -> l != oldLeader).isPresent());
            EtcdMember newLeader = cluster.awaitLeader(WAIT);
            assertNotEquals(oldLeader, newLeader);

            int portBefore = oldLeader.clientPort();
            oldLeader.start();

            assertTrue(oldLeader.isRunning());
            assertEquals(portBefore, oldLeader.clientPort());
            assertNotEquals(oldPid, oldLeader.pid());
            cluster.awaitHealthy(WAIT);
            assertEquals(3, cluster.members().stream().filter(EtcdMember::isRunning).count());
            for (EtcdMember member : cluster.members()) {
                assertTrue(healthOf(member).orElse(false), member + " is healthy");
            }
            assertPutAndGetWork(cluster);
        } finally {
            cluster.restoreAll();
        }
    }

    @Test
    void stopping_the_leader_hands_leadership_to_another_member_and_start_brings_it_back() {
        EtcdCluster cluster = ETCD.cluster();
        try {
            EtcdMember oldLeader = cluster.awaitLeader(WAIT);

            oldLeader.stop();

            assertFalse(oldLeader.isRunning());
            assertNotEquals(oldLeader, cluster.awaitLeader(WAIT));

            oldLeader.start();

            cluster.awaitHealthy(WAIT);
            assertTrue(oldLeader.isRunning());
        } finally {
            cluster.restoreAll();
        }
    }

    @Test
    void a_paused_member_does_not_answer_health_until_resumed() throws Exception {
        EtcdCluster cluster = ETCD.cluster();
        try {
            EtcdMember leader = cluster.awaitLeader(WAIT);
            EtcdMember follower = cluster.members().stream().filter(m -> m != leader).findFirst().orElseThrow();

            follower.pause();

            assertTrue(follower.isPaused());
            assertTrue(follower.isRunning(), "a paused process is still alive");
            assertThrows(HttpTimeoutException.class, () -> rawHealth(follower));
            cluster.awaitHealthy(WAIT);
            assertEquals(Optional.of(leader), cluster.leader(), "a paused follower does not disturb the leader");

            follower.resume();

            assertFalse(follower.isPaused());
            await().atMost(WAIT).until(() -> healthOf(follower).orElse(false));
        } finally {
            cluster.restoreAll();
        }
    }

    @Test
    void a_lone_restarted_member_without_quorum_starts_and_restore_all_heals_the_cluster() {
        EtcdCluster cluster = ETCD.cluster();
        try {
            cluster.members().forEach(EtcdMember::kill);
            assertTrue(cluster.leader().isEmpty());

            cluster.member(0).start();

            assertTrue(cluster.member(0).isRunning(), "start returns once the port listens, even without quorum");
            assertTrue(cluster.leader().isEmpty(), "one of three members cannot elect a leader");

            cluster.restoreAll();

            assertTrue(cluster.members().stream().allMatch(EtcdMember::isRunning));
            assertTrue(cluster.leader().isPresent());
            assertPutAndGetWork(cluster);
        } finally {
            cluster.restoreAll();
        }
    }

    @Test
    void close_leaves_no_etcd_process_running_and_deletes_the_data_dirs() {
        EtcdCluster cluster = EtcdCluster.builder().members(3).name("closing").start();
        List<Long> pids = cluster.members().stream().map(EtcdMember::pid).collect(Collectors.toList());
        List<Path> dataDirs = cluster.members().stream().map(EtcdMember::dataDir).collect(Collectors.toList());
        cluster.member(1).pause();
        cluster.member(2).kill();
        dataDirs.forEach(dir -> assertTrue(Files.isDirectory(dir), dir + " exists while running"));

        cluster.close();
        cluster.close();

        for (long pid : pids) {
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "pid " + pid + " is gone");
        }
        for (EtcdMember member : cluster.members()) {
            assertFalse(member.isRunning());
            assertEquals(-1, member.pid());
            assertTrue(Files.exists(member.logFile()), "logs survive close for post-mortems");
        }
        dataDirs.forEach(dir -> assertFalse(Files.exists(dir), dir + " is deleted"));
        assertThrows(IllegalStateException.class, () -> cluster.member(0).start());
    }

    @Nested
    class With_a_per_test_cluster_on_an_instance_field {

        @RegisterExtension
        final EtcdClusterExtension etcd = EtcdClusterExtension.members(1).electionTimeoutMillis(500);

        @Test
        void each_test_gets_its_own_running_cluster() {
            EtcdCluster cluster = etcd.cluster();
            assertEquals(500, cluster.electionTimeoutMillis());
            assertTrue(cluster.member(0).name().startsWith("With_a_per_test_cluster"), cluster.member(0).name());
            assertTrue(cluster.leader().isPresent());
            assertNotEquals(ETCD.cluster(), cluster);
            assertEquals("EtcdClusterIT-0", ETCD.cluster().member(0).name(),
                    "the enclosing class's cluster is shared with nested classes, not restarted for them");
        }
    }

    private static void assertPutAndGetWork(EtcdCluster cluster) {
        Client client = Client.builder().endpoints(cluster.clientEndpoints().toArray(String[]::new)).build();
        try {
            ByteSequence key = ByteSequence.from("leasehold/it/after-chaos", UTF_8);
            ByteSequence value = ByteSequence.from(Long.toString(System.nanoTime()), UTF_8);
            // A client may first pick a member that is still catching up; the bounded wait covers that, not a sleep.
            await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
                client.getKVClient().put(key, value).get(2, TimeUnit.SECONDS);
                assertEquals(value, client.getKVClient().get(key).get(2, TimeUnit.SECONDS).getKvs().get(0).getValue());
            });
        } finally {
            client.close();
        }
    }

    /** Empty when the member does not answer within 500 ms. */
    private static Optional<Boolean> healthOf(EtcdMember member) {
        try {
            return Optional.of(rawHealth(member).body().contains("\"health\":\"true\""));
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    private static HttpResponse<String> rawHealth(EtcdMember member) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(member.clientEndpoint() + "/health"))
                .timeout(Duration.ofMillis(500))
                .GET()
                .build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
