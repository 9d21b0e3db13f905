package dev.leasehold.it;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * AdminSql holds the JDBC the server launchers run as their administrator: one statement on a fresh connection, and
 * the wait for a starting server's first answer. Stateless and thread-safe; each launcher says how it connects.
 */
public final class AdminSql {

    /** Connector opens a fresh administrator connection to one server. */
    @FunctionalInterface
    public interface Connector {
        /** open returns a new connection, which the caller closes. */
        Connection open() throws SQLException;
    }

    private AdminSql() {}

    /** rows runs one statement on a fresh connection and returns its rows as strings; empty without a result set. */
    public static List<List<String>> rows(Connector connector, String statement) throws SQLException {
        try (Connection connection = connector.open(); Statement jdbc = connection.createStatement()) {
            List<List<String>> rows = new ArrayList<>();
            if (!jdbc.execute(statement)) {
                return rows;
            }
            try (ResultSet result = jdbc.getResultSet()) {
                int columns = result.getMetaData().getColumnCount();
                while (result.next()) {
                    List<String> row = new ArrayList<>(columns);
                    for (int column = 1; column <= columns; column++) {
                        row.add(result.getString(column));
                    }
                    rows.add(row);
                }
            }
            return rows;
        }
    }

    /**
     * awaitAnswer polls every 50 ms until {@code SELECT 1} over a fresh connection answers 1, and returns null; else,
     * when {@code process} ({@code program}) exits or the timeout passes, what went wrong, with the last connection
     * error.
     */
    public static String awaitAnswer(Process process, String program, String url, Connector connector,
            Duration timeout) {
        Instant deadline = Instant.now().plus(timeout);
        SQLException last = null;
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                return program + " exited with code " + process.exitValue() + " while starting";
            }
            try {
                if (rows(connector, "SELECT 1").equals(List.of(List.of("1")))) {
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
}
