package dev.leasehold.it.mariadb;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestWatcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MariaDbExtension gives a JUnit 5 test class one private {@link MariaDbServer}, injects it as a parameter, and
 * always closes it after the class's last test, pass or fail.
 *
 * <p>The server starts in beforeAll and is shared by the class's tests and its {@code @Nested} classes; tests that
 * stop, kill or pause it restore it themselves. When a test fails, the tail of the server's log is logged. The
 * extension keeps its server in JUnit's extension store, so it is thread-safe as far as JUnit's callbacks are;
 * the server itself is thread-safe.
 *
 * <pre>{@code
 * @ExtendWith(MariaDbExtension.class)
 * class SomeIT {
 *     @Test
 *     void works(MariaDbServer mariadb) { ... }
 * }
 * }</pre>
 *
 * <p>For extra mariadbd flags, register it on a static field instead:
 * {@code @RegisterExtension static final MariaDbExtension DB = MariaDbExtension.withOptions("--flag=value");}
 */
public final class MariaDbExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver, TestWatcher {

    private static final Logger log = LoggerFactory.getLogger(MariaDbExtension.class);
    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(MariaDbExtension.class);
    private static final String KEY = "server";
    private static final int FAILURE_LOG_LINES = 40;

    private final List<String> options;

    /** MariaDbExtension creates the extension with the launcher's default flags, as {@code @ExtendWith} does. */
    public MariaDbExtension() {
        this(List.of());
    }

    private MariaDbExtension(List<String> options) {
        this.options = List.copyOf(options);
    }

    /** withOptions returns an extension whose server gets these mariadbd flags after the launcher's own. */
    public static MariaDbExtension withOptions(String... flags) {
        return new MariaDbExtension(List.of(flags));
    }

    /** beforeAll starts the class's server, unless an enclosing class's server is already there to share. */
    @Override
    public void beforeAll(ExtensionContext context) {
        if (find(context).isPresent()) {
            return;
        }
        MariaDbServerBuilder builder = MariaDbServer.builder().name(serverName(context.getRequiredTestClass()));
        options.forEach(builder::option);
        // Stored only once started: a failed start has already cleaned up after itself.
        context.getStore(NAMESPACE).put(KEY, builder.start());
    }

    /** afterAll closes the server when the class that started it is done; a nested class leaves it alone. */
    @Override
    public void afterAll(ExtensionContext context) {
        // remove() looks at this context's own store only, not at an enclosing class's.
        MariaDbServer server = context.getStore(NAMESPACE).remove(KEY, MariaDbServer.class);
        if (server != null) {
            server.close();
        }
    }

    /** supportsParameter accepts parameters of type {@link MariaDbServer}. */
    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == MariaDbServer.class;
    }

    /** resolveParameter returns the class's running server. */
    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return find(extensionContext).orElseThrow(() -> new ParameterResolutionException(
                "no MariaDB server: register MariaDbExtension with @ExtendWith or on a static @RegisterExtension "
                        + "field, so that it starts in beforeAll"));
    }

    /** testFailed logs the tail of the server's log next to the failure. */
    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        find(context).ifPresent(server -> log.warn("{} failed; {}; last {} lines of {}:{}{}",
                context.getDisplayName(), server, FAILURE_LOG_LINES, server.logFile(), System.lineSeparator(),
                server.logTail(FAILURE_LOG_LINES)));
    }

    // get() searches enclosing contexts too, which is how nested classes share the outer server.
    private static Optional<MariaDbServer> find(ExtensionContext context) {
        return Optional.ofNullable(context.getStore(NAMESPACE).get(KEY, MariaDbServer.class));
    }

    private static String serverName(Class<?> testClass) {
        String cleaned = testClass.getSimpleName().replaceAll("[^A-Za-z0-9._-]", "-");
        return cleaned.isEmpty() || !Character.isLetterOrDigit(cleaned.charAt(0)) ? "mariadb-" + cleaned : cleaned;
    }
}
