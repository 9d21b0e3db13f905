package dev.leasehold.it;

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
 * LocalServerExtension gives a JUnit 5 test class one private {@link LocalServer} of type {@code S}, injects it as a
 * parameter, and always closes it after the class's last test, pass or fail: what the MariaDB and PostgreSQL
 * extensions share.
 *
 * <p>The server starts in beforeAll, named after the test class, and is shared by the class's tests and its
 * {@code @Nested} classes; tests that stop, kill or pause it restore it themselves. When a test fails, the tail of
 * the server's log is logged. The extension keeps its server in JUnit's extension store (one namespace per concrete
 * extension, so two kinds of server can serve one class), so it is thread-safe as far as JUnit's callbacks are; the
 * server itself is thread-safe.
 *
 * @param <S> the server's type, the parameter type the extension resolves
 */
public abstract class LocalServerExtension<S extends LocalServer>
        implements BeforeAllCallback, AfterAllCallback, ParameterResolver, TestWatcher {

    private static final Logger log = LoggerFactory.getLogger(LocalServerExtension.class);
    private static final String KEY = "server";
    private static final int FAILURE_LOG_LINES = 40;

    private final Class<S> type;
    private final ExtensionContext.Namespace namespace;

    /** LocalServerExtension serves parameters of {@code type}. */
    protected LocalServerExtension(Class<S> type) {
        this.type = type;
        this.namespace = ExtensionContext.Namespace.create(getClass());
    }

    /** start starts the class's server under {@code name}, returning once it serves; it cleans up if it fails. */
    protected abstract S start(String name);

    /** beforeAll starts the class's server, unless an enclosing class's server is already there to share. */
    @Override
    public final void beforeAll(ExtensionContext context) {
        if (find(context).isPresent()) {
            return;
        }
        // Stored only once started: a failed start has already cleaned up after itself.
        context.getStore(namespace).put(KEY, start(serverName(context.getRequiredTestClass())));
    }

    /** afterAll closes the server when the class that started it is done; a nested class leaves it alone. */
    @Override
    public final void afterAll(ExtensionContext context) {
        // remove() looks at this context's own store only, not at an enclosing class's.
        S server = context.getStore(namespace).remove(KEY, type);
        if (server != null) {
            server.close();
        }
    }

    /** supportsParameter accepts parameters of the server's type. */
    @Override
    public final boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == type;
    }

    /** resolveParameter returns the class's running server. */
    @Override
    public final Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return find(extensionContext).orElseThrow(() -> new ParameterResolutionException("no "
                + type.getSimpleName() + ": register " + getClass().getSimpleName() + " with @ExtendWith or on a "
                + "static @RegisterExtension field, so that it starts in beforeAll"));
    }

    /** testFailed logs the tail of the server's log next to the failure. */
    @Override
    public final void testFailed(ExtensionContext context, Throwable cause) {
        find(context).ifPresent(server -> log.warn("{} failed; {}; last {} lines of {}:{}{}",
                context.getDisplayName(), server, FAILURE_LOG_LINES, server.logFile(), System.lineSeparator(),
                server.logTail(FAILURE_LOG_LINES)));
    }

    // get() searches enclosing contexts too, which is how nested classes share the outer server.
    private Optional<S> find(ExtensionContext context) {
        return Optional.ofNullable(context.getStore(namespace).get(KEY, type));
    }

    private String serverName(Class<?> testClass) {
        String cleaned = testClass.getSimpleName().replaceAll("[^A-Za-z0-9._-]", "-");
        return cleaned.isEmpty() || !Character.isLetterOrDigit(cleaned.charAt(0))
                ? type.getSimpleName().toLowerCase() + "-" + cleaned : cleaned;
    }
}
