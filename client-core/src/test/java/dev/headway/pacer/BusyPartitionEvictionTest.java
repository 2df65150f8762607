package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Past maxPartitions, a partition whose state is in use (in flight, held) is never evicted. */
@Timeout(30)
class BusyPartitionEvictionTest {
  static final URI API = URI.create("https://api.example.com/items");
  static final RequestInfo GET = RequestInfo.get(API);

  private final VirtualClock clock = VirtualClock.create();

  private Pacer pacer() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitter(Jitter.none())
        .maxWait(Duration.ofSeconds(5)).maxPartitions(10).build();
  }

  private void useOtherPartitions(Pacer pacer) throws Exception {
    for (int i = 0; i < 200; i++) {
      clock.advance(Duration.ofMillis(1));
      pacer.acquire(RequestInfo.get(URI.create("https://host" + i + ".example.com/")))
          .complete(Signals.limit(200, 100, 60, 99, 60));
    }
  }

  /** Other partitions, each with a request in flight (returned, to complete later). */
  private List<Permit> busyOtherPartitions(Pacer pacer) throws Exception {
    List<Permit> permits = new java.util.ArrayList<>();
    for (int i = 0; i < 200; i++) {
      clock.advance(Duration.ofMillis(1));
      permits.add(pacer.acquire(RequestInfo.get(URI.create("https://busy" + i + ".example.com/"))));
    }
    return permits;
  }

  @Test
  void aPartitionWithPermitsInFlightKeepsItsState() throws Exception {
    Pacer pacer = pacer();
    pacer.acquire(GET).complete(Signals.limit(200, 1, 60, 1, 60));
    Permit inFlight = pacer.acquire(GET); // the last unit of the window, in flight
    useOtherPartitions(pacer);
    List<Permit> others = busyOtherPartitions(pacer);
    assertThat(pacer.tryAcquire(GET)).as("a second request on a quota of one").isEmpty();
    others.forEach(Permit::release);
    assertThat(pacer.quota(API).policy("default").orElseThrow().inFlight()).isEqualTo(1);
    inFlight.complete(Signals.limit(200, 1, 60, 0, 60));
    useOtherPartitions(pacer);
    // Idle now: the bound holds at rest.
    assertThat(pacer.partitionCount()).isLessThanOrEqualTo(10);
  }

  @Test
  void aHeldPartitionKeepsItsHold() throws Exception {
    Pacer pacer = pacer();
    pacer.acquire(GET).complete(Signals.throttled(429, Optional.of(Duration.ofSeconds(30)),
        List.of(), Optional.empty()));
    useOtherPartitions(pacer);
    assertThat(pacer.tryAcquire(GET)).as("a request during a 30 s Retry-After").isEmpty();
  }
}
