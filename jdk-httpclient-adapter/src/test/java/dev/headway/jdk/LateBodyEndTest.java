package dev.headway.jdk;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A throttled body whose bytes have all arrived but whose end the client signals only after
 * {@link dev.headway.internal.adapter.BodyHints#WAIT}, as a JDK client does on a machine so busy
 * that its thread is descheduled between the last bytes and the end (seen on a CI run at load
 * 16 on 2 cores: the body's {@code retry_after} was lost and the call retried after 1 s).
 */
class LateBodyEndTest {
  @ParameterizedTest
  @EnumSource(Mode.class)
  void readsTheHintOfABodyWhoseDeclaredLengthArrivedBeforeItsEnd(Mode mode) throws Exception {
    AtomicInteger lateEnds = new AtomicInteger();
    try (Harness h = new Harness(b -> b, HttpClient.newBuilder(),
        jdk -> new LateEndClient(jdk, lateEnds))) {
      h.enqueue(429, "Content-Type", "application/json", "{\"retry_after\": 3}");
      h.enqueue(200, "ok");

      HttpResponse<String> response = h.call(mode, h.get("/"));

      assertThat(response.body()).isEqualTo("ok");
      assertThat(h.requests()).isEqualTo(2);
      assertThat(lateEnds.get()).isEqualTo(1);
      assertThat(h.clock.elapsed()).isBetween(Duration.ofSeconds(3), Duration.ofSeconds(30));
    }
  }

  /**
   * Holds back a 429 body's end until Headway decided about that response (its body future
   * completed), which it can only do once its {@code BodyHints.WAIT} ran out: every byte of the
   * body is delivered on time, only the end is late.
   */
  private static final class LateEnd<T> implements BodySubscriber<T> {
    private final BodySubscriber<T> headway;
    private final AtomicInteger lateEnds;

    LateEnd(BodySubscriber<T> headway, AtomicInteger lateEnds) {
      this.headway = headway;
      this.lateEnds = lateEnds;
    }

    @Override
    public CompletionStage<T> getBody() {
      return headway.getBody();
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      headway.onSubscribe(subscription);
    }

    @Override
    public void onNext(List<ByteBuffer> item) {
      headway.onNext(item);
    }

    @Override
    public void onError(Throwable throwable) {
      headway.onError(throwable);
    }

    @Override
    public void onComplete() {
      CompletableFuture<T> decided = headway.getBody().toCompletableFuture();
      if (!decided.isDone()) {
        lateEnds.incrementAndGet();
      }
      // No timer of the test's own (it would outlive the test): a body Headway never decides
      // about leaves the call unfinished, which the harness reports after its real-time bound.
      decided.whenComplete((value, failure) -> headway.onComplete());
    }
  }

  /** A JDK client whose 429 bodies end late (see {@link LateEnd}); all else is delegated. */
  private static final class LateEndClient extends HttpClient {
    private final HttpClient jdk;
    private final AtomicInteger lateEnds;

    LateEndClient(HttpClient jdk, AtomicInteger lateEnds) {
      this.jdk = jdk;
      this.lateEnds = lateEnds;
    }

    private <T> BodyHandler<T> lateEnd(BodyHandler<T> handler) {
      return info -> {
        BodySubscriber<T> subscriber = handler.apply(info);
        return info.statusCode() == 429 ? new LateEnd<>(subscriber, lateEnds) : subscriber;
      };
    }

    @Override
    public <T> HttpResponse<T> send(HttpRequest request, BodyHandler<T> handler)
        throws java.io.IOException, InterruptedException {
      return jdk.send(request, lateEnd(handler));
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request,
        BodyHandler<T> handler) {
      return jdk.sendAsync(request, lateEnd(handler));
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request,
        BodyHandler<T> handler, HttpResponse.PushPromiseHandler<T> push) {
      return jdk.sendAsync(request, lateEnd(handler), push);
    }

    @Override
    public Optional<CookieHandler> cookieHandler() {
      return jdk.cookieHandler();
    }

    @Override
    public Optional<Duration> connectTimeout() {
      return jdk.connectTimeout();
    }

    @Override
    public Redirect followRedirects() {
      return jdk.followRedirects();
    }

    @Override
    public Optional<ProxySelector> proxy() {
      return jdk.proxy();
    }

    @Override
    public SSLContext sslContext() {
      return jdk.sslContext();
    }

    @Override
    public SSLParameters sslParameters() {
      return jdk.sslParameters();
    }

    @Override
    public Optional<Authenticator> authenticator() {
      return jdk.authenticator();
    }

    @Override
    public Version version() {
      return jdk.version();
    }

    @Override
    public Optional<Executor> executor() {
      return jdk.executor();
    }
  }
}
