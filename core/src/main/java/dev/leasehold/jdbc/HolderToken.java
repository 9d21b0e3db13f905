package dev.leasehold.jdbc;

import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * HolderToken names one take attempt of one process in the lease row's {@code holder} column:
 * 128 random bits as 32 lower-case hex digits, fresh for every attempt, never the candidate id
 * (PROTOCOL.md, SQL backend, "Table"). Its named lock is {@code 'leasehold/' + token}.
 *
 * <p>A token read from the row may be anything an operator wrote; only {@link #wellFormed()}
 * tokens are ever waited on. Immutable and thread-safe.
 *
 * @param value the column's text
 */
record HolderToken(String value) {
  /** LOCK_PREFIX starts every wake-up lock's name. */
  static final String LOCK_PREFIX = "leasehold/";

  HolderToken {
    Objects.requireNonNull(value, "value");
    if (value.isEmpty()) {
      throw new IllegalArgumentException("a holder token is never empty ('' means released)");
    }
  }

  /** random draws a fresh token from {@code random} (a SecureRandom in production). */
  static HolderToken random(RandomGenerator random) {
    return new HolderToken(hex16(random.nextLong()) + hex16(random.nextLong()));
  }

  /** wellFormed is true for 32 lower-case hex digits, the only tokens this library writes. */
  boolean wellFormed() {
    if (value.length() != 32) {
      return false;
    }
    for (int i = 0; i < 32; i++) {
      char c = value.charAt(i);
      if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
        return false;
      }
    }
    return true;
  }

  /** lockName is the GET_LOCK name {@code 'leasehold/' + token}: 42 characters, within MySQL's 64. */
  String lockName() {
    return LOCK_PREFIX + value;
  }

  /**
   * leaseId is the token's first 64 bits, which {@code Leadership.leaseId()} and
   * {@code LeaderInfo.leaseId()} show in hex (so they print the token's first 16 digits).
   */
  long leaseId() {
    return wellFormed() ? Long.parseUnsignedLong(value.substring(0, 16), 16) : value.hashCode();
  }

  private static String hex16(long bits) {
    String s = Long.toHexString(bits);
    return "0".repeat(16 - s.length()) + s;
  }

  @Override
  public String toString() {
    return value;
  }
}
