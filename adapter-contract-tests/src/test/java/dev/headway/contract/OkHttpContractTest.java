package dev.headway.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.headway.Pacer;
import dev.headway.okhttp.RateLimitInterceptor;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.BufferedSink;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** The contract on OkHttp's {@code execute}, with the interceptor added as the docs say. */
class OkHttpContractTest extends AdapterContract {
  private static final MediaType TEXT = MediaType.get("text/plain");

  @Override
  Caller caller(Pacer pacer) {
    return caller(new OkHttpClient.Builder()
        .addInterceptor(RateLimitInterceptor.create(pacer)).build());
  }

  private static Caller caller(OkHttpClient client) {
    return new Caller() {
      @Override
      public Reply send(String method, URI uri, @Nullable String body, boolean oneShot)
          throws IOException {
        RequestBody requestBody = body == null ? null
            : oneShot ? oneShot(body) : RequestBody.create(body, TEXT);
        Request request = new Request.Builder().url(uri.toString()).method(method, requestBody)
            .build();
        try (Response response = client.newCall(request).execute()) {
          return new Reply(response.code(), response.body().string());
        }
      }

      @Override
      public Class<? extends Exception> interrupted() {
        return InterruptedIOException.class;
      }

      @Override
      public boolean interruptFlagKept() {
        return true;
      }
    };
  }

  private static RequestBody oneShot(String body) {
    return new RequestBody() {
      @Override
      public MediaType contentType() {
        return TEXT;
      }

      @Override
      public void writeTo(BufferedSink sink) throws IOException {
        sink.writeUtf8(body);
      }

      @Override
      public boolean isOneShot() {
        return true;
      }
    };
  }

  @Test
  void addedAsANetworkInterceptorWithRetriesItFailsAtOnceSayingHowToAddIt() {
    enqueue(200, "ok");
    Caller caller = caller(new OkHttpClient.Builder()
        .addNetworkInterceptor(RateLimitInterceptor.create(pacer())).build());

    Throwable thrown = catchThrowable(() -> get(caller, "/a"));

    assertThat(thrown).isInstanceOf(IOException.class)
        .hasMessageContaining("addInterceptor").hasMessageContaining("maxAttempts(1)");
    assertThat(server.getRequestCount()).isZero();
  }

  @Test
  void addedAsANetworkInterceptorWithOneAttemptItPacesEachRequest() throws Exception {
    letTimePass();
    enqueue(200, "first", "RateLimit-Policy", SPENT_POLICY, "RateLimit", "\"fixed\";r=0;t=5");
    enqueue(200, "second");
    Caller caller = caller(new OkHttpClient.Builder()
        .addNetworkInterceptor(RateLimitInterceptor.builder(pacer()).maxAttempts(1).build())
        .build());

    assertThat(get(caller, "/a")).isEqualTo(new Reply(200, "first"));
    assertThat(get(caller, "/b")).isEqualTo(new Reply(200, "second"));

    assertThat(clock.elapsed()).isGreaterThanOrEqualTo(java.time.Duration.ofSeconds(5));
  }
}
