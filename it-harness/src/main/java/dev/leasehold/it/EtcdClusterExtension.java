package dev.leasehold.it;

import java.util.function.Consumer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * EtcdClusterExtension gives a JUnit 5 test class a fresh {@link EtcdCluster} and always closes it.
 *
 * <p>Registered on a static field it starts one cluster per class (beforeAll/afterAll); on an instance field it
 * starts one per test (beforeEach/afterEach). Tests that stop or pause members restore them themselves, for example
 * with {@link EtcdCluster#restoreAll()}. Thread-safe for JUnit's sequential callbacks: state is volatile, but one
 * instance must not serve test methods running concurrently.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final EtcdClusterExtension ETCD = EtcdClusterExtension.members(3);
 * }</pre>
 */
public final class EtcdClusterExtension
        implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

    private final int members;
    private volatile Integer electionTimeoutMillis;
    private volatile Consumer<EtcdClusterBuilder> options = b -> { };
    private volatile EtcdCluster cluster;
    // Set before starting so that a failed beforeAll does not make beforeEach start per-test clusters instead.
    private volatile boolean classScoped;
    // JUnit calls an outer class's extensions again for each @Nested class; only the context that started the
    // cluster may close it, or the nested class's afterAll would pull it from under the outer class's tests.
    private volatile String ownerContextId;

    private EtcdClusterExtension(int members) {
        if (members < 1) {
            throw new IllegalArgumentException("members must be >= 1: " + members);
        }
        this.members = members;
    }

    /** members returns an extension that starts a cluster of {@code n} members. */
    public static EtcdClusterExtension members(int n) {
        return new EtcdClusterExtension(n);
    }

    /** electionTimeoutMillis sets the election timeout of the cluster this extension will start. */
    public EtcdClusterExtension electionTimeoutMillis(int ms) {
        if (cluster != null) {
            throw new IllegalStateException("electionTimeoutMillis must be set before the cluster starts");
        }
        this.electionTimeoutMillis = ms;
        return this;
    }

    /**
     * configure adds launch options (TLS, client-cert auth, authentication) to the builder of the cluster this
     * extension will start, after its own member count, name and election timeout.
     */
    public EtcdClusterExtension configure(Consumer<EtcdClusterBuilder> more) {
        if (cluster != null) {
            throw new IllegalStateException("configure must be called before the cluster starts");
        }
        this.options = options.andThen(more);
        return this;
    }

    /** cluster returns the running cluster, or throws IllegalStateException outside the extension's lifecycle. */
    public EtcdCluster cluster() {
        EtcdCluster current = cluster;
        if (current == null) {
            throw new IllegalStateException(
                    "no etcd cluster: register with @RegisterExtension and use it inside test lifecycle methods");
        }
        return current;
    }

    /** beforeAll starts the class-wide cluster, once, even when JUnit repeats the call for nested classes. */
    @Override
    public void beforeAll(ExtensionContext context) {
        if (classScoped) {
            return;
        }
        classScoped = true;
        ownerContextId = context.getUniqueId();
        cluster = newCluster(clusterName(context.getRequiredTestClass(), null));
    }

    /** afterAll closes the class-wide cluster when the class that started it is done, pass or fail. */
    @Override
    public void afterAll(ExtensionContext context) {
        if (context.getUniqueId().equals(ownerContextId)) {
            closeCluster();
            classScoped = false;
            ownerContextId = null;
        }
    }

    /** beforeEach starts a per-test cluster when the extension sits on an instance field. */
    @Override
    public void beforeEach(ExtensionContext context) {
        if (classScoped || cluster != null) {
            return;
        }
        cluster = newCluster(clusterName(context.getRequiredTestClass(), context.getRequiredTestMethod().getName()));
    }

    /** afterEach closes a per-test cluster, whether or not the test passed. */
    @Override
    public void afterEach(ExtensionContext context) {
        if (!classScoped) {
            closeCluster();
        }
    }

    private EtcdCluster newCluster(String name) {
        EtcdClusterBuilder builder = EtcdCluster.builder().members(members).name(name);
        Integer election = electionTimeoutMillis;
        if (election != null) {
            builder.electionTimeoutMillis(election);
        }
        options.accept(builder);
        return builder.start();
    }

    private void closeCluster() {
        EtcdCluster current = cluster;
        cluster = null;
        if (current != null) {
            current.close();
        }
    }

    // The name ends up in member names and the log directory, so it should say which test the logs belong to.
    private static String clusterName(Class<?> testClass, String method) {
        String raw = testClass.getSimpleName() + (method == null ? "" : "-" + method);
        String cleaned = raw.replaceAll("[^A-Za-z0-9._-]", "-");
        return cleaned.isEmpty() || !Character.isLetterOrDigit(cleaned.charAt(0)) ? "etcd-" + cleaned : cleaned;
    }
}
