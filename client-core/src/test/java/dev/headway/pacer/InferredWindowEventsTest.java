package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.PacerEvent;
import dev.headway.Permit;
import dev.headway.PolicySnapshot;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A window inferred for {@code X-RateLimit-*} counts is reported in the {@code QuotaUpdated}
 * events, marked learned with its confidence, so a listener sees why the pacer paced; before
 * the inference the events carry no window and are not marked. Virtual time throughout.
 */
@Timeout(60)
class InferredWindowEventsTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  static final long SECOND = 1_000_000_000L;

  private final VirtualClock clock = VirtualClock.create();
  private final List<PacerEvent> events = new CopyOnWriteArrayList<>();

  private HttpFields fields(CountsWithoutAWindowTest.Answer answer) {
    Instant now = clock.instant();
    long resetEpoch = (now.getEpochSecond() * SECOND + now.getNano() + answer.resetNanos()
        + SECOND - 1) / SECOND;
    return HttpFields.builder()
        .add("Date", DateTimeFormatter.RFC_1123_DATE_TIME.format(
            Instant.ofEpochSecond(now.getEpochSecond()).atOffset(ZoneOffset.UTC)))
        .add("X-RateLimit-Limit", "100")
        .add("X-RateLimit-Remaining", Long.toString(answer.remaining()))
        .add("X-RateLimit-Reset", Long.toString(resetEpoch))
        .build();
  }

  @Test
  void theInferredWindowShowsInQuotaUpdatedEventsMarkedLearned() throws Exception {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(5)
        .executor(Runnable::run).listener(events::add).build();
    CountsWithoutAWindowTest.FixedWindow server = new CountsWithoutAWindowTest.FixedWindow();
    while (clock.read() < 200 * SECOND) {
      Permit permit = pacer.tryAcquire(GET).orElse(null);
      if (permit == null) {
        clock.advance(Duration.ofMillis(100));
        continue;
      }
      clock.advance(Duration.ofMillis(25));
      CountsWithoutAWindowTest.Answer answer = server.admit(clock.read());
      clock.advance(Duration.ofMillis(25));
      permit.complete(answer.ok() ? 200 : 429, fields(answer), null);
    }
    List<PolicySnapshot> reported = events.stream()
        .filter(e -> e instanceof PacerEvent.QuotaUpdated)
        .map(e -> ((PacerEvent.QuotaUpdated) e).quota().policies().get(0)).toList();
    assertThat(reported).as("a QuotaUpdated per counted response").hasSizeGreaterThan(100);
    assertThat(reported.get(0).learned()).as("nothing inferred at first").isFalse();
    assertThat(reported.get(0).window()).isEmpty();
    PolicySnapshot last = reported.get(reported.size() - 1);
    assertThat(last.learned()).as("the window inferred from the reset's moves").isTrue();
    assertThat(last.window()).contains(Duration.ofSeconds(60));
    assertThat(last.confidence()).isGreaterThan(0.0).isLessThan(1.0);
    assertThat(last.limit()).as("the header's number").hasValue(100L);
  }
}
