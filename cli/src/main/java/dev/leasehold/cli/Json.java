package dev.leasehold.cli;

import java.time.Instant;
import java.util.HexFormat;

/**
 * Json prints the one-line objects of {@code status --json} and {@code watch --json}; strings
 * are escaped per RFC 8259.
 *
 * <p>Stateless and thread-safe.
 */
final class Json {
  private Json() {}

  /** snapshot prints a snapshot of {@code key} as a JSON object, with {@code time} when not null. */
  static String snapshot(String key, LeaderReader.Snapshot s, Instant time) {
    StringBuilder b = new StringBuilder("{");
    if (time != null) {
      b.append("\"time\":").append(string(time.toString())).append(',');
    }
    b.append("\"key\":").append(string(key)).append(",\"leader\":");
    if (s.leaderId().isEmpty()) {
      return b.append("null}").toString();
    }
    b.append(string(s.leaderId().get())).append(",\"fencingToken\":").append(s.fencingToken());
    if (s.leaseId() != 0) {
      b.append(",\"leaseId\":").append(string(Long.toHexString(s.leaseId())));
    }
    b.append(",\"ttlLeftMillis\":").append(s.ttlLeft().toMillis())
        .append(",\"grantedTtlMillis\":").append(s.grantedTtl().toMillis());
    return b.append('}').toString();
  }

  /** string quotes and escapes {@code s}. */
  static String string(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append("\\u").append(HexFormat.of().toHexDigits((short) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }
}
