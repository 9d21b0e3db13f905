package dev.leasehold.it.mariadb;

import dev.leasehold.it.LocalServerExtension;
import java.util.List;

/**
 * MariaDbExtension gives a JUnit 5 test class one private {@link MariaDbServer}, injects it as a parameter, and
 * always closes it after the class's last test, pass or fail (see {@link LocalServerExtension}).
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
 * Thread-safe as far as JUnit's callbacks are.
 */
public final class MariaDbExtension extends LocalServerExtension<MariaDbServer> {

    private final List<String> options;

    /** MariaDbExtension creates the extension with the launcher's default flags, as {@code @ExtendWith} does. */
    public MariaDbExtension() {
        this(List.of());
    }

    private MariaDbExtension(List<String> options) {
        super(MariaDbServer.class);
        this.options = List.copyOf(options);
    }

    /** withOptions returns an extension whose server gets these mariadbd flags after the launcher's own. */
    public static MariaDbExtension withOptions(String... flags) {
        return new MariaDbExtension(List.of(flags));
    }

    /** start starts a mariadbd with the extension's flags. */
    @Override
    protected MariaDbServer start(String name) {
        MariaDbServerBuilder builder = MariaDbServer.builder().name(name);
        options.forEach(builder::option);
        return builder.start();
    }
}
