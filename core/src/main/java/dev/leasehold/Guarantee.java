package dev.leasehold;

/**
 * Guarantee says how far a term's mutual exclusion reaches, so that leader-only code can
 * refuse dangerous work on a weaker one (after a fallback, above all).
 *
 * <p>Immutable and thread-safe.
 */
public enum Guarantee {
  /**
   * DISTRIBUTED: a replicated store (etcd) grants the term; it holds across hosts and survives
   * the loss of a minority of the store's members.
   */
  DISTRIBUTED,
  /**
   * SINGLE_DATABASE: one database server (MariaDB/MySQL) grants the term; it holds across
   * hosts while that server (or a replica that saw the last commit) serves them all.
   */
  SINGLE_DATABASE,
  /**
   * IN_PROCESS: a store inside this JVM grants the term; it excludes only the electors of
   * this process, never another instance of the service.
   */
  IN_PROCESS;

  /**
   * atLeast is true when this guarantee is as strong as {@code other} or stronger.
   *
   * @param other the guarantee a caller needs
   * @return true when a term with this guarantee gives at least {@code other}'s mutual exclusion
   */
  public boolean atLeast(Guarantee other) {
    return ordinal() <= other.ordinal();
  }
}
