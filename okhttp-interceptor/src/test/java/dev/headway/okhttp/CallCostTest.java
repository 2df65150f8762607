package dev.headway.okhttp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.RequestInfo;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URI;
import okhttp3.Headers;
import okhttp3.HttpUrl;
import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the interceptor allocates per call, in bytes on the calling thread (a deterministic
 * counter, unlike wall time on a shared machine): describing the request and copying the
 * response headers, measured alone, and a whole loopback call with and without the interceptor.
 * The bounds leave room for JIT and OkHttp-line differences, not for a return to copying every
 * header into maps or re-encoding the URL.
 */
@Timeout(120)
class CallCostTest {
  private static final Headers RESPONSE = new Headers.Builder()
      .add("Content-Type", "application/json")
      .add("RateLimit-Policy", "\"default\";q=1000000000;w=3600")
      .add("RateLimit", "\"default\";r=999999999;t=3600")
      .add("Content-Length", "11")
      .build();

  private static final Method ALLOCATED;
  private static final Object THREADS;

  static {
    try {
      // Reflection: the test sources are compiled into the module, which does not read
      // java.management; at run time the tests are on the class path.
      THREADS = Class.forName("java.lang.management.ManagementFactory")
          .getMethod("getThreadMXBean").invoke(null);
      ALLOCATED = Class.forName("com.sun.management.ThreadMXBean")
          .getMethod("getThreadAllocatedBytes", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private static long allocated() {
    try {
      return (long) ALLOCATED.invoke(THREADS, Thread.currentThread().getId());
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }

  /** Something done once per call, returning a value so that the JIT cannot drop it. */
  private interface Op {
    Object run() throws IOException;
  }

  private static long bytesPerRun(String what, int runs, Op op) throws IOException {
    Object sink = null;
    for (int i = 0; i < runs; i++) {
      sink = op.run();
    }
    long before = allocated();
    for (int i = 0; i < runs; i++) {
      sink = op.run();
    }
    long bytes = (allocated() - before) / runs;
    System.out.printf("%s: %d bytes%n", what, bytes);
    assertThat(sink).isNotNull();
    return bytes;
  }

  @Test
  void describingARequestDoesNotReencodeItsUrl() throws IOException {
    HttpUrl url = HttpUrl.get("http://127.0.0.1:53187/v1/items?page=2");
    Request request = new Request.Builder().url(url).build();

    long bytes = bytesPerRun("describe", 100_000, () -> OkHttpMessages.describe(request));

    RequestInfo info = OkHttpMessages.describe(request);
    assertThat(info.uri()).isEqualTo(URI.create("http://127.0.0.1:53187/v1/items?page=2"));
    assertThat(info.headers().size()).isZero();
    assertThat(bytes).isLessThanOrEqualTo(600); // was 2,270 through HttpUrl.uri()
  }

  @Test
  void copyingResponseHeadersAllocatesOneArrayAndNoMaps() throws IOException {
    long bytes = bytesPerRun("response headers", 100_000, () -> OkHttpMessages.fields(RESPONSE));

    HttpFields fields = OkHttpMessages.fields(RESPONSE);
    assertThat(fields.firstValue("ratelimit")).hasValue("\"default\";r=999999999;t=3600");
    assertThat(fields.names())
        .containsExactly("content-type", "ratelimit-policy", "ratelimit", "content-length");
    assertThat(bytes).isLessThanOrEqualTo(200); // was 1,216 into two LinkedHashMaps
  }

  @Test
  void aWholeCallWithTheInterceptorAllocatesLittleMoreThanWithout() throws Exception {
    // The response comes from an interceptor behind the one measured, not from a socket: what is
    // measured is then the interceptor alone, without Nagle delays or the server's threads.
    Interceptor server = chain -> new Response.Builder()
        .request(chain.request())
        .protocol(Protocol.HTTP_1_1)
        .code(200)
        .message("OK")
        .headers(RESPONSE)
        .body(ResponseBody.create("{\"ok\":true}", MediaType.get("application/json")))
        .build();
    HttpUrl url = HttpUrl.get("http://127.0.0.1:53187/v1/items");
    OkHttpClient plain = new OkHttpClient.Builder().addInterceptor(server).build();
    OkHttpClient paced = new OkHttpClient.Builder()
        .addInterceptor(RateLimitInterceptor.create(Pacer.create()))
        .addInterceptor(server)
        .build();

    long without = bytesPerRun("call without interceptor", 50_000, () -> call(plain, url));
    long with = bytesPerRun("call with interceptor", 50_000, () -> call(paced, url));

    System.out.printf("interceptor overhead: %d bytes per call%n", with - without);
    assertThat(paced.newCall(new Request.Builder().url(url).build()).execute().code())
        .isEqualTo(200);
    assertThat(with - without).isLessThanOrEqualTo(2_000); // was 4,632
  }

  private static String call(OkHttpClient client, HttpUrl url) throws IOException {
    try (Response response = client.newCall(new Request.Builder().url(url).build()).execute()) {
      return response.body().string();
    }
  }
}
