package dev.headway.okhttp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.RateLimitedException;
import dev.headway.okhttp.testing.Harness;
import dev.headway.okhttp.testing.Mode;
import dev.headway.okhttp.testing.Outcome;
import dev.headway.okhttp.testing.Reply;
import java.time.Duration;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The interceptor added twice to one client, as when a client made with {@code newBuilder()} from
 * one that already has it adds it again: each call is paced once, as with one interceptor.
 */
class AddedTwiceTest {
  private static Harness twice(Harness h) {
    RateLimitInterceptor first = RateLimitInterceptor.create(h.pacer());
    return h.client(first, b -> b.addInterceptor(RateLimitInterceptor.create(h.pacer())));
  }

  /** Before: the server saw 5 requests, the inner interceptor's 3 and 2 more of the outer one. */
  @ParameterizedTest
  @EnumSource(Mode.class)
  void aServerThatAnswers429EveryTimeSeesMaxAttemptsRequests(Mode mode) throws Exception {
    try (Harness h = Harness.start()) {
      twice(h.pacer(p -> p.maxAttempts(3)));
      h.fallback(Reply.status(429).header("Retry-After", "1").body("slow down"));

      Outcome outcome = h.send(mode, h.get("/r"));

      assertThat(outcome.code()).isEqualTo(429);
      assertThat(h.requestCount()).isEqualTo(3);
    }
  }

  /**
   * Before: each call took two permits, and the last one the server allowed failed with
   * RateLimitedException ("would have to wait 60 s").
   */
  @ParameterizedTest
  @EnumSource(Mode.class)
  void theLastRequestAWindowAllowsGoesAtOnce(Mode mode) throws Exception {
    try (Harness h = Harness.start()) {
      twice(h.pacer(p -> p.maxWait(Duration.ofSeconds(10))));
      h.enqueue(Reply.status(200).headers("RateLimit-Policy", "\"fixed\";q=2;w=60",
          "RateLimit", "\"fixed\";r=1;t=60").body("first"), Reply.status(200).body("second"));
      assertThat(h.send(mode, h.get("/a")).code()).isEqualTo(200);

      Outcome second = h.send(mode, h.get("/b"));

      assertThat(second.failure()).isNull();
      assertThat(second.body()).isEqualTo("second");
      assertThat(h.sent().get(1).at()).isLessThan(Duration.ofSeconds(1));
      assertThat(h.pacer().partitions()).allSatisfy(quota -> assertThat(quota.policies())
          .allSatisfy(policy -> assertThat(policy.inFlight()).isZero()));
    }
  }

  /**
   * A call made from within a paced call's chain (an interceptor after Headway's fetching a token
   * from another origin) is paced on its own: the token origin's spent window refuses the second
   * token call, which fails the second call before it is sent.
   */
  @ParameterizedTest
  @EnumSource(Mode.class)
  void aCallMadeFromWithinThePacedChainIsPacedItself(Mode mode) throws Exception {
    try (Harness h = Harness.start()) {
      h.pacer(p -> p.maxWait(Duration.ofSeconds(10)));
      // The same server under another origin: a partition of its own.
      HttpUrl token = h.url("/token").newBuilder().host("127.0.0.1").build();
      OkHttpClient tokens = new OkHttpClient.Builder()
          .addInterceptor(RateLimitInterceptor.create(h.pacer())).build();
      h.client(h.interceptor(), b -> b.addInterceptor(chain -> {
        try (Response fetched = tokens.newCall(new Request.Builder().url(token).build())
            .execute()) {
          return chain.proceed(chain.request().newBuilder()
              .header("Authorization", "Bearer " + fetched.body().string()).build());
        }
      }));
      h.enqueue(Reply.status(200).headers("RateLimit-Policy", "\"fixed\";q=1;w=60",
          "RateLimit", "\"fixed\";r=0;t=60").body("token-1"), Reply.status(200).body("first"));

      assertThat(h.send(mode, h.get("/a")).body()).isEqualTo("first");
      Outcome second = h.send(mode, h.get("/b"));

      assertThat(second.failure()).isInstanceOf(RateLimitedException.class);
      assertThat(h.requestCount()).isEqualTo(2);
    }
  }
}
