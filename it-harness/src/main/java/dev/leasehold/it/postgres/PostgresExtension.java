package dev.leasehold.it.postgres;

import dev.leasehold.it.LocalServerExtension;
import java.util.List;

/**
 * PostgresExtension gives a JUnit 5 test class one private {@link PostgresServer}, injects it as a parameter, and
 * always closes it after the class's last test, pass or fail (see {@link LocalServerExtension}).
 *
 * <pre>{@code
 * @ExtendWith(PostgresExtension.class)
 * class SomeIT {
 *     @Test
 *     void works(PostgresServer postgres) { ... }
 * }
 * }</pre>
 *
 * <p>For extra server settings, register it on a static field instead:
 * {@code @RegisterExtension static final PostgresExtension DB = PostgresExtension.withSettings("name=value");}
 * Thread-safe as far as JUnit's callbacks are.
 */
public final class PostgresExtension extends LocalServerExtension<PostgresServer> {

    private final List<String> settings;

    /** PostgresExtension creates the extension with the launcher's settings, as {@code @ExtendWith} does. */
    public PostgresExtension() {
        this(List.of());
    }

    private PostgresExtension(List<String> settings) {
        super(PostgresServer.class);
        this.settings = List.copyOf(settings);
    }

    /** withSettings returns an extension whose server gets these {@code name=value} settings after the launcher's. */
    public static PostgresExtension withSettings(String... settings) {
        return new PostgresExtension(List.of(settings));
    }

    /** start starts a postgres with the extension's settings. */
    @Override
    protected PostgresServer start(String name) {
        PostgresServerBuilder builder = PostgresServer.builder().name(name);
        settings.forEach(builder::setting);
        return builder.start();
    }
}
