package dev.leasehold.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** ColdStartHopsTest reads the summary ScaleMain prints, and an absent one as no hops. */
class ColdStartHopsTest {
  @Test
  void parsesEachHopsCountAndTimes() {
    List<ColdStartHops.Hop> hops =
        ColdStartHops.parse("POLL_ON_LOOP:1953:127.0:1709.5:2478.0 CAS_SENT:136:2455.0:3404.0:3452.0");
    assertEquals(List.of(new ColdStartHops.Hop("POLL_ON_LOOP", 1953, 127.0, 1709.5, 2478.0),
        new ColdStartHops.Hop("CAS_SENT", 136, 2455.0, 3404.0, 3452.0)), hops);
  }

  @Test
  void noValueIsNoHops() {
    assertTrue(ColdStartHops.parse(null).isEmpty());
    assertTrue(ColdStartHops.parse(" ").isEmpty());
  }
}
