package dev.leasehold.it.mariadb;

import dev.leasehold.it.AdminSql;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

/** MariaDbJdbc holds the few JDBC calls {@link MariaDbServer} makes as root; stateless and thread-safe. */
final class MariaDbJdbc {

    private MariaDbJdbc() {}

    /** Opens a connection whose every read gives up after {@code timeout}, and whose connect after at most 1 s. */
    static Connection connect(String url, String user, String password, Duration timeout) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", user);
        properties.setProperty("password", password);
        properties.setProperty("connectTimeout", Long.toString(Math.min(timeout.toMillis(), 1000)));
        properties.setProperty("socketTimeout", Long.toString(timeout.toMillis()));
        return DriverManager.getConnection(url, properties);
    }

    /** Runs one statement on a fresh connection and returns its rows as strings; empty without a result set. */
    static List<List<String>> rows(String url, String user, String password, Duration timeout, String statement)
            throws SQLException {
        return AdminSql.rows(() -> connect(url, user, password, timeout), statement);
    }

    /**
     * Polls every 50 ms until {@code SELECT 1} over a fresh connection answers 1, and returns null; else, when the
     * process exits or the timeout passes, what went wrong, with the last connection error.
     */
    static String awaitAnswer(Process process, String url, String user, String password, Duration timeout) {
        return AdminSql.awaitAnswer(process, "mariadbd", url,
                () -> connect(url, user, password, Duration.ofSeconds(2)), timeout);
    }

    /** A string literal; backslashes are escaped too, since the server runs without NO_BACKSLASH_ESCAPES. */
    static String quote(String value) {
        return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'";
    }
}
