package dev.leasehold.etcd;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.net.ConnectException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** A client that cannot connect is replaced once the period has passed, and then at most once per period. */
class ReconnectTest {
  private static final long S = 1_000_000_000L;
  private long now = 1_000 * S;
  private final Reconnect r = new Reconnect(() -> now, S);

  private static Throwable refused() {
    // What a fail-fast call on a channel in TRANSIENT_FAILURE carries.
    return new CompletionException(new StatusRuntimeException(Status.UNAVAILABLE
        .withDescription("io exception")
        .withCause(new ConnectException("Connection refused: /127.0.0.1:2379"))));
  }

  @Test
  void aClientThatCannotConnectIsReplacedOncePerPeriod() {
    assertFalse(r.due(), "nothing failed");
    r.failed(refused());
    now += S / 2;
    r.failed(refused());
    assertFalse(r.due(), "not for a period yet");
    now += S / 2;
    assertTrue(r.due());
    assertFalse(r.due(), "just replaced");
    now += S / 2;
    r.failed(refused());
    assertFalse(r.due(), "at most once per period");
    now += S / 2;
    assertTrue(r.due());
  }

  @Test
  void anAnswerOrAFailureThatIsNotAConnectionEndsIt() {
    r.failed(refused());
    now += 2 * S;
    r.answered();
    assertFalse(r.due(), "etcd answered");
    r.failed(new CompletionException(new StatusRuntimeException(
        Status.UNAVAILABLE.withDescription("etcdserver: no leader"))));
    now += 2 * S;
    assertFalse(r.due(), "no leader is an answer over a working connection");
  }
}
