package dev.headway.okhttp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.okhttp.testing.Harness;
import dev.headway.okhttp.testing.Mode;
import dev.headway.okhttp.testing.Outcome;
import dev.headway.okhttp.testing.Reply;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.Buffer;
import okio.BufferedSource;
import okio.ForwardingSource;
import okio.Okio;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A throttled body whose bytes have all arrived but whose end comes only after
 * {@link dev.headway.internal.adapter.BodyHints#WAIT}, as on a machine so busy that the thread
 * reading it is descheduled between the last bytes and the end: its hint is still used.
 */
class LateBodyEndTest {
  @ParameterizedTest
  @EnumSource(Mode.class)
  void readsTheHintOfABodyWhoseDeclaredLengthArrivedBeforeItsEnd(Mode mode) throws Exception {
    CountDownLatch endSent = new CountDownLatch(1);
    try (Harness h = Harness.start()) {
      h.client(h.interceptor(), b -> b.addInterceptor(new LateEnd(endSent)));
      h.enqueue(Reply.status(429).header("Content-Type", "application/json")
          .body("{\"retry_after\": 3}"), Reply.status(200).body("ok"));

      Outcome outcome = h.send(mode, h.get("/r"));

      assertThat(outcome.body()).isEqualTo("ok");
      assertThat(h.sent()).hasSize(2);
      assertThat(h.sent().get(1).at()).isBetween(Duration.ofSeconds(3), Duration.ofSeconds(30));
    } finally {
      endSent.countDown(); // a body still read ahead gets its end, and its reader returns
    }
  }

  /**
   * Between Headway and the network: a 429 body's bytes are handed over as they arrive, but its
   * end only once the next request goes out, the test ends, or {@link #END_HELD_AT_MOST} passed
   * (real time: only so that a reader that waits for the end, as Headway's did before, meets it and
   * the test fails at once instead of at its bound). Its holding does not make the test pass: a
   * hint read only at the end would come after {@code BodyHints.WAIT}.
   */
  private static final class LateEnd implements Interceptor {
    private static final Duration END_HELD_AT_MOST = Duration.ofSeconds(1);
    private final CountDownLatch endSent;
    private final AtomicBoolean held = new AtomicBoolean();

    LateEnd(CountDownLatch endSent) {
      this.endSent = endSent;
    }

    @Override
    public Response intercept(Chain chain) throws IOException {
      if (held.get()) {
        endSent.countDown(); // a request after the 429: Headway decided about it
      }
      Response response = chain.proceed(chain.request());
      ResponseBody body = response.body();
      if (response.code() != 429 || body == null) {
        return response;
      }
      held.set(true);
      BufferedSource endHeldBack = Okio.buffer(new ForwardingSource(body.source()) {
        @Override
        public long read(Buffer sink, long byteCount) throws IOException {
          long n = super.read(sink, byteCount);
          if (n == -1) {
            try {
              endSent.await(END_HELD_AT_MOST.toNanos(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new InterruptedIOException("interrupted while the end was held back");
            }
          }
          return n;
        }
      });
      return response.newBuilder().body(new ResponseBody() {
        @Override
        public @Nullable MediaType contentType() {
          return body.contentType();
        }

        @Override
        public long contentLength() {
          return body.contentLength();
        }

        @Override
        public BufferedSource source() {
          return endHeldBack;
        }
      }).build();
    }
  }
}
