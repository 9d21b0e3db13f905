package dev.leasehold.it.postgres;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/** PgClient holds the plain JDBC the launcher ITs run as a client would; stateless and thread-safe. */
final class PgClient {

    private PgClient() {}

    /** connect opens a connection that gives up connecting after 2 s and reading after {@code socketTimeout} s. */
    static Connection connect(String url, String user, String password, int socketTimeoutSeconds)
            throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", user);
        properties.setProperty("password", password);
        properties.setProperty("connectTimeout", "2");
        properties.setProperty("loginTimeout", "2");
        properties.setProperty("socketTimeout", Integer.toString(socketTimeoutSeconds));
        return DriverManager.getConnection(url, properties);
    }

    /** execute runs one statement and ignores what it returns. */
    static void execute(Connection connection, String statement) throws SQLException {
        try (Statement jdbc = connection.createStatement()) {
            jdbc.execute(statement);
        }
    }

    /** scalar returns the first column of the first row as a string, SQL NULL and void as "". */
    static String scalar(Connection connection, String query) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(query)) {
            assertTrue(result.next(), query + " returned no row");
            String value = result.getString(1);
            return value == null ? "" : value;
        }
    }
}
