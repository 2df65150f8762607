package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server that counts correctly but sends a reset thousands of years out
 * ({@code X-RateLimit-Reset: 99999999999999}, epoch milliseconds in the year 5138). Headway used
 * to cap that reset to a day and spread the last part of the count over the day: every later call
 * was refused at once ("would have to wait 43199.37 s") while the server still admitted requests
 * (a new user's trial: 10 requests sent and 235 calls refused in 47 s). A reset past
 * {@code maxReset} is not believed now: the count is paced as if it came with no reset.
 */
@Timeout(60)
class ResetPastTheCapTest {
  static final URI API = URI.create("https://api.example.com/items");
  static final RequestInfo GET = RequestInfo.get(API);
  static final long MS = 1_000_000L;
  static final long SECOND = 1_000_000_000L;
  static final long QUOTA = 10;
  static final long WINDOW = 10 * SECOND;

  private final VirtualClock clock = VirtualClock.create();

  /**
   * 10 per 10 s fixed window; answers with {@code reset} (if not null), and a bare 429 past the
   * count.
   */
  private final class Server {
    final String reset;
    long window = -1;
    long used;
    int admitted;
    int throttled;

    Server(String reset) {
      this.reset = reset;
    }

    /** Receives one request now; returns its status and header fields. */
    Answer handle() {
      long w = clock.read() / WINDOW;
      if (w != window) {
        window = w;
        used = 0;
      }
      HttpFields.Builder fields = HttpFields.builder().add("X-RateLimit-Limit", "10");
      if (reset != null) {
        fields.add("X-RateLimit-Reset", reset);
      }
      if (used >= QUOTA) {
        throttled++;
        return new Answer(429, fields.add("X-RateLimit-Remaining", "0").build());
      }
      used++;
      admitted++;
      return new Answer(200,
          fields.add("X-RateLimit-Remaining", Long.toString(QUOTA - used)).build());
    }
  }

  record Answer(int status, HttpFields fields) {}

  /** One caller: asks, sends 50 ms after the grant, asks again 100 ms after the answer. */
  private final class Caller {
    CompletableFuture<Permit> pending;
    long grantedAt = -1;
    long nextAskAt;
  }

  @Test
  void aResetThousandsOfYearsOutDoesNotRefuseCallsTheServerWouldAdmit() {
    Outcome bogus = run("99999999999999");
    assertThat(bogus.refusals().size()).as("calls refused while the server admits 10 every 10 s;"
        + " first: %s", bogus.refusals().isEmpty() ? "none" : bogus.refusals().get(0)).isZero();
    assertThat(bogus.admitted()).as("admitted of the 60 the server allows in 60 s")
        .isGreaterThanOrEqualTo(50);
  }

  @Test
  void aResetPastTheCapIsPacedExactlyAsNoResetAtAll() {
    Outcome bogus = run("99999999999999");
    Outcome none = run(null);
    assertThat(bogus.admitted()).isEqualTo(none.admitted());
    assertThat(bogus.throttled()).isEqualTo(none.throttled());
  }

  record Outcome(int admitted, int throttled, List<String> refusals) {}

  /** Four callers for 60 s against a server answering {@code reset}. */
  private Outcome run(String reset) {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(5)
        .maxWait(Duration.ofSeconds(30)).build();
    Server server = new Server(reset);
    List<Caller> callers = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      callers.add(new Caller());
    }
    List<String> refusals = new ArrayList<>();
    for (long t = 0; t < 60 * SECOND; t += 10 * MS) {
      for (Caller c : callers) {
        if (c.pending == null && c.grantedAt < 0 && clock.read() >= c.nextAskAt) {
          c.pending = pacer.acquireAsync(GET);
        }
        if (c.pending != null && c.grantedAt < 0 && c.pending.isDone()) {
          try {
            c.pending.join();
            c.grantedAt = clock.read();
          } catch (CompletionException e) {
            assertThat(e.getCause()).isInstanceOf(RateLimitedException.class);
            refusals.add(e.getCause().getMessage());
            c.pending = null;
            c.nextAskAt = clock.read() + 100 * MS;
            continue;
          }
        }
        if (c.grantedAt >= 0 && clock.read() - c.grantedAt >= 50 * MS) {
          Answer answer = server.handle();
          c.pending.join().complete(answer.status(), answer.fields(), null);
          c.pending = null;
          c.grantedAt = -1;
          c.nextAskAt = clock.read() + 100 * MS;
        }
      }
      clock.advance(Duration.ofMillis(10));
    }
    return new Outcome(server.admitted, server.throttled, refusals);
  }
}
