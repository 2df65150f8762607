package dev.headway.benchmarks.jmh;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * A whole OkHttp call to a loopback MockWebServer that answers every request with a 200 carrying
 * the structured {@code RateLimit} pair (a quota that never runs out), with and without
 * Headway's interceptor. The difference is what Headway adds to a real call.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class OkHttpCallBenchmark {
  private MockWebServer server;
  private HttpUrl url;
  private OkHttpClient plain;
  private OkHttpClient withHeadway;

  /** Starts the server and builds both clients (one connection pool each, kept warm). */
  @Setup(Level.Trial)
  public void setUp() throws IOException {
    MockResponse response = new MockResponse.Builder()
        .code(200)
        .addHeader("Content-Type", "application/json")
        .addHeader("RateLimit-Policy", "\"default\";q=" + LimiterBenchmark.HUGE + ";w=3600")
        .addHeader("RateLimit", "\"default\";r=" + LimiterBenchmark.HUGE + ";t=3600")
        .body("{\"ok\":true}")
        .build();
    server = new MockWebServer();
    server.setServerSocketFactory(new NoDelayServerSockets());
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        return response;
      }
    });
    server.start();
    url = server.url("/v1/items");
    plain = new OkHttpClient.Builder().build();
    withHeadway = HeadwayOkHttp.withInterceptor(plain);
  }

  /** Stops the server and both clients' pools. */
  @TearDown(Level.Trial)
  public void tearDown() {
    plain.connectionPool().evictAll();
    withHeadway.connectionPool().evictAll();
    plain.dispatcher().executorService().shutdown();
    server.close();
  }

  /** One GET, body read, with no interceptor. */
  @Benchmark
  public String callWithoutHeadway() throws IOException {
    return call(plain);
  }

  /** One GET, body read, through Headway's {@code RateLimitInterceptor}. */
  @Benchmark
  public String callWithHeadway() throws IOException {
    return call(withHeadway);
  }

  private String call(OkHttpClient client) throws IOException {
    try (Response response = client.newCall(new Request.Builder().url(url).build()).execute()) {
      ResponseBody body = response.body();
      return body.string();
    }
  }
}
