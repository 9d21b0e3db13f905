package dev.leasehold.it;

import io.etcd.jetcd.Auth;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.auth.Permission;
import io.etcd.jetcd.options.OptionsUtil;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * EtcdAuth sets up etcd authentication through jetcd's Auth API, the way an operator would with
 * {@code etcdctl user add}, {@code role grant-permission} and {@code auth enable}.
 *
 * <p>Stateless and thread-safe; every call blocks until etcd answers (at most 10 s).
 */
public final class EtcdAuth {

    /** ROOT is etcd's superuser, which {@code auth enable} requires. */
    public static final String ROOT = "root";

    private EtcdAuth() {}

    /** enable creates the root user with {@code rootPassword}, gives it the root role and turns authentication on. */
    static void enable(Client client, String rootPassword) {
        Auth auth = client.getAuthClient();
        join(auth.userAdd(bytes(ROOT), bytes(rootPassword)), "user add root");
        join(auth.userGrantRole(bytes(ROOT), bytes(ROOT)), "user grant-role root root");
        join(auth.authEnable(), "auth enable");
    }

    /**
     * addUser creates {@code user} with {@code password} and a role of the same name plus "-role" that may read and
     * write {@code key} only, or every key starting with it when {@code prefix}; nothing else, no lease permission
     * (etcd 3.4 has none). {@code root} must be a client authenticated as root.
     */
    public static void addUser(Client root, String user, String password, String key, boolean prefix) {
        addUser(root, user, password, key, prefix, Permission.Type.READWRITE);
    }

    /** addUser is {@link #addUser(Client, String, String, String, boolean)} granting {@code permission} instead. */
    public static void addUser(Client root, String user, String password, String key, boolean prefix,
            Permission.Type permission) {
        Auth auth = root.getAuthClient();
        String role = user + "-role";
        ByteSequence from = bytes(key);
        // etcd reads an empty range end as "this key only".
        ByteSequence to = prefix ? OptionsUtil.prefixEndOf(from) : ByteSequence.EMPTY;
        join(auth.roleAdd(bytes(role)), "role add " + role);
        join(auth.roleGrantPermission(bytes(role), from, to, permission),
                "role grant-permission " + role + " " + permission + " " + key + (prefix ? " --prefix" : ""));
        join(auth.userAdd(bytes(user), bytes(password)), "user add " + user);
        join(auth.userGrantRole(bytes(user), bytes(role)), "user grant-role " + user + " " + role);
    }

    static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    private static <T> T join(CompletableFuture<T> call, String what) {
        try {
            return call.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("etcd auth setup failed at '" + what + "': " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted at '" + what + "'", e);
        }
    }
}
