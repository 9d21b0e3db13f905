package dev.leasehold.select;

import java.util.Locale;

/**
 * FallbackPolicy says what an elector built by {@link Backends} does when its backend stays
 * unreachable. Only {@link #FAIL_CLOSED} keeps the guarantee of the preferred backend; the
 * others trade it for availability, and say so loudly (a WARN line, a {@code FALLBACK} event,
 * {@link FallbackElector#fallbackInForce()}, and {@code Leadership.guarantee()} of every term
 * won on the weaker backend).
 *
 * <p>What a fallback can cost: instances decide to fall back on their own, each from what it
 * sees. An instance that cannot reach etcd while others still can elects on the next backend
 * among those that fell back too, so two instances can both lead, one on each backend, for as
 * long as the split lasts. On {@code local} every instance that fell back leads at once:
 * {@code local} excludes only electors of the same JVM. Fencing tokens of different backends
 * are unrelated numbers; a guard on one store does not fence a leader of another.
 *
 * <p>Immutable and thread-safe (an enum).
 */
public enum FallbackPolicy {
  /**
   * FAIL_CLOSED (the default): use the first backend only; while it is unreachable the elector
   * stays FOLLOWER, retries with backoff and reports STORE_UNAVAILABLE, and never leads. Costs
   * availability during an outage, never exclusion.
   */
  FAIL_CLOSED,
  /**
   * FALL_BACK: once the backend in use has been unreachable for {@code fallbackAfter} (and this
   * instance does not lead, which an unreachable store ends by the deadline), elect on the next
   * backend in order, and stay there until closed. Costs: possibly two leaders while instances
   * disagree on the backend (see the class comment), and the weaker guarantee for good.
   */
  FALL_BACK,
  /**
   * FALL_BACK_AND_RETURN: like {@link #FALL_BACK}, and, while on a fallback, watch the preferred
   * (first) backend; once it has answered for {@code returnAfter}, give the term on the weaker
   * backend up (RESIGNED), wait until it is over, and only then elect on the preferred backend
   * again ({@code FALLBACK_ENDED}). Costs: those of FALL_BACK while the fallback lasts, one
   * handover per return, and a probe election on the preferred backend (key
   * {@code <electionKey>.fallback-probe}, no standby lease) while fallen back.
   */
  FALL_BACK_AND_RETURN;

  /**
   * parse reads a policy as {@code leasehold.fallback} spells it: {@code fail-closed},
   * {@code fall-back}, {@code fall-back-and-return} (case-insensitive; '_' for '-' accepted).
   *
   * @param name the name as given, for example {@code FALL_BACK}
   * @return the policy of that name
   * @throws IllegalArgumentException naming the value and the names accepted
   */
  public static FallbackPolicy parse(String name) {
    String n = name == null ? "" : name.strip().toUpperCase(Locale.ROOT).replace('-', '_');
    for (FallbackPolicy p : values()) {
      if (p.name().equals(n)) {
        return p;
      }
    }
    throw new IllegalArgumentException(
        "a fallback policy must be one of fail-closed, fall-back, fall-back-and-return, but was "
            + (name == null ? "null" : "\"" + name + "\""));
  }

  /**
   * propertyName is the policy as {@code leasehold.fallback} spells it, e.g. fall-back.
   *
   * @return the lower-case, hyphenated name, as {@link #parse(String)} reads it
   */
  public String propertyName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
