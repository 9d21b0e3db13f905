package dev.leasehold.it.postgres;

import dev.leasehold.it.AdminSql;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * PgJdbc holds the JDBC calls the launchers make as the superuser, and the quoting their SQL needs; stateless and
 * thread-safe.
 */
final class PgJdbc {

    /** IDENTIFIER is what the launchers accept as a role or database name: no quoting needed, no case folding. */
    static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    /** APPLICATION_NAME marks the launchers' own sessions in pg_stat_activity. */
    static final String APPLICATION_NAME = "leasehold-launcher";

    private PgJdbc() {}

    /**
     * connect opens a connection whose reads give up after {@code timeout} (whole seconds, at least 1, as pgjdbc
     * counts them) and whose connect gives up after at most 2 s.
     */
    static Connection connect(String url, String user, String password, Duration timeout) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", user);
        properties.setProperty("password", password);
        properties.setProperty("ApplicationName", APPLICATION_NAME);
        properties.setProperty("connectTimeout", "2");
        properties.setProperty("loginTimeout", Long.toString(Math.max(1, timeout.toSeconds())));
        properties.setProperty("socketTimeout", Long.toString(Math.max(1, timeout.toSeconds())));
        return DriverManager.getConnection(url, properties);
    }

    /** rows runs one statement on a fresh connection and returns its rows as strings; empty without a result set. */
    static List<List<String>> rows(String url, String user, String password, Duration timeout, String statement)
            throws SQLException {
        return AdminSql.rows(() -> connect(url, user, password, timeout), statement);
    }

    /**
     * awaitAnswer polls every 50 ms until {@code SELECT 1} over a fresh connection answers, and returns null; else,
     * when the process exits or the timeout passes, what went wrong, with the last connection error.
     */
    static String awaitAnswer(Process process, String program, String url, String user, String password,
            Duration timeout) {
        return AdminSql.awaitAnswer(process, program, url, () -> connect(url, user, password, Duration.ofSeconds(2)),
                timeout);
    }

    /** literal quotes a string for SQL; standard_conforming_strings is on, so only quotes are doubled. */
    static String literal(String value) {
        return "'" + value.replace("'", "''") + "'";
    }

    /** checkIdentifier returns {@code value} if it matches {@link #IDENTIFIER}, else throws naming {@code field}. */
    static String checkIdentifier(String field, String value) {
        if (value == null || !IDENTIFIER.matcher(value).matches()) {
            throw new IllegalArgumentException(field + " must match " + IDENTIFIER + ", but was " + value);
        }
        return value;
    }
}
