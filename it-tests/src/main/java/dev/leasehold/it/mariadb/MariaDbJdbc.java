package dev.leasehold.it.mariadb;

import dev.leasehold.it.ProcessControl;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
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
        try (Connection connection = connect(url, user, password, timeout);
                Statement jdbc = connection.createStatement()) {
            List<List<String>> rows = new ArrayList<>();
            if (jdbc.execute(statement)) {
                try (ResultSet result = jdbc.getResultSet()) {
                    int columns = result.getMetaData().getColumnCount();
                    while (result.next()) {
                        List<String> row = new ArrayList<>(columns);
                        for (int i = 1; i <= columns; i++) {
                            row.add(result.getString(i));
                        }
                        rows.add(row);
                    }
                }
            }
            return rows;
        }
    }

    /**
     * Polls every 50 ms until {@code SELECT 1} over a fresh connection answers 1, and returns null; else, when the
     * process exits or the timeout passes, what went wrong, with the last connection error.
     */
    static String awaitAnswer(Process process, String url, String user, String password, Duration timeout) {
        Instant deadline = Instant.now().plus(timeout);
        SQLException last = null;
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                return "mariadbd exited with code " + process.exitValue() + " while starting";
            }
            try {
                if (rows(url, user, password, Duration.ofSeconds(2), "SELECT 1").equals(List.of(List.of("1")))) {
                    return null;
                }
            } catch (SQLException e) {
                last = e;
            }
            ProcessControl.sleepQuietly(50);
        }
        return "no answer to SELECT 1 at " + url + " within " + timeout + " (last error: "
                + (last == null ? "none" : last.getMessage()) + ")";
    }

    /** A string literal; backslashes are escaped too, since the server runs without NO_BACKSLASH_ESCAPES. */
    static String quote(String value) {
        return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'";
    }
}
