package dev.leasehold.select;

import dev.leasehold.Guarantee;
import java.util.Locale;

/**
 * Backend names a store an elector can run on, as {@link Backends} and the
 * {@code leasehold.backends} property name them.
 *
 * <p>Immutable and thread-safe (an enum).
 */
public enum Backend {
  /** ETCD: {@code dev.leasehold.etcd}; terms are {@link Guarantee#DISTRIBUTED}. */
  ETCD(Guarantee.DISTRIBUTED),
  /** JDBC: {@code dev.leasehold.jdbc} on MariaDB/MySQL; terms are {@link Guarantee#SINGLE_DATABASE}. */
  JDBC(Guarantee.SINGLE_DATABASE),
  /**
   * LOCAL: {@code dev.leasehold.local}, an in-process store; terms are {@link
   * Guarantee#IN_PROCESS}: they exclude only electors of this JVM, never another instance.
   */
  LOCAL(Guarantee.IN_PROCESS);

  private final Guarantee guarantee;

  Backend(Guarantee guarantee) {
    this.guarantee = guarantee;
  }

  /**
   * guarantee is how far the mutual exclusion of a term won on this backend reaches.
   *
   * @return {@link Guarantee#DISTRIBUTED} for etcd, {@link Guarantee#SINGLE_DATABASE} for JDBC,
   *     {@link Guarantee#IN_PROCESS} for local
   */
  public Guarantee guarantee() {
    return guarantee;
  }

  /**
   * propertyName is the name in {@code leasehold.backends}: etcd, jdbc or local.
   *
   * @return the lower-case name, as {@link #parse(String)} reads it
   */
  public String propertyName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * parse reads a name as {@code leasehold.backends} spells it (case-insensitive, surrounding
   * blanks ignored).
   *
   * @param name the name as given, for example {@code " ETCD "}
   * @return the backend of that name
   * @throws IllegalArgumentException naming the value and the names accepted
   */
  public static Backend parse(String name) {
    String n = name == null ? "" : name.strip().toUpperCase(Locale.ROOT);
    for (Backend b : values()) {
      if (b.name().equals(n)) {
        return b;
      }
    }
    throw new IllegalArgumentException(
        "a backend must be one of etcd, jdbc, local, but was " + (name == null ? "null" : "\"" + name + "\""));
  }
}
