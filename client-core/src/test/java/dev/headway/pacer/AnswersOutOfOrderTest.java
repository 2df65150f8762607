package dev.headway.pacer;

import static dev.headway.pacer.Signals.limit;
import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.Permit;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Answers applied in another order than the server counted their requests: a lower count whose
 * answer was not taken (its request was sent before the count held arrived, and it was not
 * below it) may have been counted after a request sent later, whose higher count is then taken.
 * The lower count still bounds it.
 */
class AnswersOutOfOrderTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));

  private final VirtualClock clock = VirtualClock.create();

  private void at(long millis) {
    clock.advance(Duration.ofNanos(millis * 1_000_000 - clock.read()));
  }

  private static Permit go(Pacer pacer) {
    return pacer.tryAcquire(GET).orElseThrow(() -> new AssertionError("not granted now"));
  }

  /**
   * A bucket of 10 refilled at 1 a second. With 0 left and 1 in flight (B, sent before that
   * count arrived), the pacer sends A when the refill covers it; the server counts A (2 left)
   * and then B (1 left). B's answer is applied first and not taken (not below the 0 held); A's
   * comes back 3 ms before B's but is applied after it, and is taken: 2 left. Without B's 1 the
   * pacer granted two requests into a bucket that held one.
   */
  @Test
  void aLowerCountNotTakenBoundsAHigherOneTakenAfterIt() {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(1)
        .maxJitter(Duration.ZERO).strategy(PacingStrategy.useAllThenWait()).build();
    at(0);
    go(pacer).complete(limit(200, 10, 10, 5, 5));
    at(100);
    Permit p2 = go(pacer);
    at(110);
    p2.complete(limit(200, 10, 10, 5, 5)); // a unit came back: the bucket refills
    at(200);
    List<Permit> c = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      c.add(go(pacer));
    }
    at(210);
    for (int i = 0; i < 4; i++) {
      c.get(i).complete(limit(200, 10, 10, 3 - i, 7)); // 3, 2, 1, 0 left
    }
    Permit b = c.get(4); // in flight since before the count of 0 arrived
    Optional<Permit> a = Optional.empty();
    for (long ms = 220; a.isEmpty() && ms < 5_000; ms += 10) {
      at(ms);
      a = pacer.tryAcquire(GET);
    }
    assertThat(a).as("a request once the refill covers it").isPresent();
    long sentA = clock.read() / 1_000_000;
    at(sentA + 20);
    b.complete(limit(200, 10, 10, 1, 9)); // counted after A: 1 left
    at(sentA + 30);
    a.get().complete(limit(200, 10, 10, 2, 8)); // answered 3 ms before B, applied after it

    int granted = 0;
    while (pacer.tryAcquire(GET).isPresent()) {
      granted++;
    }
    assertThat(granted).as("granted at once while the bucket holds 1").isLessThanOrEqualTo(1);
  }

  /**
   * The same in a fixed window: H's count says 10 left; B, sent before H, and A, sent after H's
   * count arrived, are counted A (9) then B (8). B's answer comes back first and lowers the count to 8;
   * A's is taken after it, and its 9 must not give B's unit back.
   */
  @Test
  void aLowerCountTakenFirstBoundsAHigherOneOfARequestSentBeforeItArrived() {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(1)
        .maxJitter(Duration.ZERO).strategy(PacingStrategy.useAllThenWait()).build();
    at(0);
    go(pacer).complete(limit(200, 20, 60, 19, 60));
    Permit b = go(pacer);
    at(1);
    Permit h = go(pacer);
    at(10);
    h.complete(limit(200, 20, 60, 10, 60)); // 10 left after H
    at(20);
    Permit a = go(pacer); // sent after H's count arrived
    at(30);
    b.complete(limit(200, 20, 60, 8, 60)); // counted after A: 8 left
    at(31);
    a.complete(limit(200, 20, 60, 9, 60)); // answered before B, applied after it

    int granted = 0;
    while (pacer.tryAcquire(GET).isPresent()) {
      granted++;
    }
    assertThat(granted).as("granted at once while the window holds 8").isLessThanOrEqualTo(8);
  }
}
