package dev.leasehold.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class EtcdLeaderElectorBuilderTest {
  private static String error(EtcdLeaderElector.Builder b) {
    return assertThrows(IllegalArgumentException.class, b::build).getMessage();
  }

  @Test
  void missingEndpointsAreRejected() {
    assertEquals(
        "endpoints must name at least one etcd URL such as http://127.0.0.1:2379 (or set client),"
            + " but was null",
        error(EtcdLeaderElector.builder().electionKey("/k")));
  }

  @Test
  void malformedEndpointIsRejectedWithItsIndexAndValue() {
    assertEquals(
        "endpoints[1] must be a URL like http://127.0.0.1:2379 (no port), but was \"http://h\"",
        error(EtcdLeaderElector.builder().electionKey("/k").endpoints("http://a:1", "http://h")));
    assertEquals(
        "endpoints[0] must be a URL like http://127.0.0.1:2379 (scheme must be http),"
            + " but was \"127.0.0.1:2379\"",
        error(EtcdLeaderElector.builder().electionKey("/k").endpoints("127.0.0.1:2379")));
  }

  @Test
  void keyIsValidatedBeforeEndpoints() {
    assertEquals(
        "electionKey must be a non-blank string, but was \"\"",
        error(EtcdLeaderElector.builder().electionKey("").endpoints("http://a:1")));
  }
}
