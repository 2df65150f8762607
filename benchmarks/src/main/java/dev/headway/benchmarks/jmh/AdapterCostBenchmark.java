package dev.headway.benchmarks.jmh;

import dev.headway.jdk.RateLimitedHttpClient;
import dev.headway.okhttp.RateLimitInterceptor;
import dev.headway.spring.webflux.RateLimitExchangeFilterFunction;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;
import okhttp3.Headers;
import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.springframework.http.HttpStatus;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;

/**
 * What Headway's adapters cost a call, without the network: the same client call with and
 * without Headway, answered in the calling thread by a stub that stands where the network would
 * be, with a 200 carrying the structured {@code RateLimit} pair (a quota that never runs out).
 *
 * <p>For OkHttp the stub is the last application interceptor (the call goes through
 * {@code RealCall}, the dispatcher's bookkeeping and {@code RateLimitInterceptor}, then the stub
 * answers instead of connecting). For {@code java.net.http} it is an {@code HttpClient} that
 * feeds the body handler's subscriber the body in the calling thread, wrapped by
 * {@code RateLimitedHttpClient}. For Spring's {@code WebClient} it is the
 * {@code ExchangeFunction} (where the connector would be), after
 * {@code RateLimitExchangeFilterFunction}; a permit that needs no wait completes at once, so the
 * reactive call too completes in the calling thread. Everything runs on the benchmark thread, so with one thread the
 * time JMH measures is that thread's CPU time: the difference of a pair is the CPU Headway adds to
 * a call, with an error bar of a few nanoseconds instead of the microseconds a loopback call's
 * scheduling adds. {@code CallOverhead} gives the real call it is a share of.
 *
 * <p>With {@code -t N}, N threads share the clients and so one pacer and one partition: JMH's time
 * per call then includes waiting for a core and for the partition's lock, and {@link CallCpu}
 * counts the CPU per call apart (a thread spinning shows there; a thread parked shows only in
 * the time). {@code run-jmh.sh} runs it with 2 and 8 threads on top of the one-thread run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AdapterCostBenchmark {
  private static final byte[] BODY = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);
  private static final MediaType JSON = MediaType.get("application/json");
  private static final Headers OK_HEADERS = new Headers.Builder()
      .add("Content-Type", "application/json")
      .add("RateLimit-Policy", "\"default\";q=" + LimiterBenchmark.HUGE + ";w=3600")
      .add("RateLimit", "\"default\";r=" + LimiterBenchmark.HUGE + ";t=3600")
      .build();
  private static final HttpHeaders JDK_HEADERS = HttpHeaders.of(Map.of(
      "content-type", List.of("application/json"),
      "ratelimit-policy", List.of("\"default\";q=" + LimiterBenchmark.HUGE + ";w=3600"),
      "ratelimit", List.of("\"default\";r=" + LimiterBenchmark.HUGE + ";t=3600")),
      (name, value) -> true);
  private static final String URL = "http://127.0.0.1:9/v1/items";

  private OkHttpClient okPlain;
  private OkHttpClient okHeadway;
  private HttpClient jdkPlain;
  private RateLimitedHttpClient jdkHeadway;
  private WebClient webClientPlain;
  private WebClient webClientHeadway;
  private URI uri;

  /** Builds both clients of each kind; each Headway client has a pacer of its own. */
  @Setup(Level.Trial)
  public void setUp() {
    okPlain = new OkHttpClient.Builder().addInterceptor(new StubNetwork()).build();
    // Headway's interceptor first, the stub after it: the order an application has.
    OkHttpClient.Builder builder = new OkHttpClient.Builder();
    builder.interceptors().add(RateLimitInterceptor.create());
    builder.interceptors().add(new StubNetwork());
    okHeadway = builder.build();
    jdkPlain = new StubHttpClient();
    jdkHeadway = RateLimitedHttpClient.wrap(jdkPlain);
    webClientPlain = WebClient.builder().exchangeFunction(STUB_EXCHANGE).build();
    webClientHeadway = WebClient.builder().exchangeFunction(STUB_EXCHANGE)
        .filter(RateLimitExchangeFilterFunction.create()).build();
    uri = URI.create(URL);
  }

  /** Stops the OkHttp clients' dispatchers (nothing was connected). */
  @TearDown(Level.Trial)
  public void tearDown() {
    okPlain.dispatcher().executorService().shutdown();
    okHeadway.dispatcher().executorService().shutdown();
  }

  /** One OkHttp call, body read, no Headway: the stub answers. */
  @Benchmark
  public String okhttpWithout(CallCpu cpu) throws IOException {
    cpu.calls++;
    return okCall(okPlain);
  }

  /** One OkHttp call, body read, through {@code RateLimitInterceptor}: the stub answers. */
  @Benchmark
  public String okhttpWithHeadway(CallCpu cpu) throws IOException {
    cpu.calls++;
    return okCall(okHeadway);
  }

  /** One {@code java.net.http} call, body as a string, no Headway: the stub answers. */
  @Benchmark
  public String jdkWithout(CallCpu cpu) throws IOException, InterruptedException {
    cpu.calls++;
    return jdkPlain.send(HttpRequest.newBuilder(uri).GET().build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }

  /** One {@code java.net.http} call, body as a string, through {@code RateLimitedHttpClient}. */
  @Benchmark
  public String jdkWithHeadway(CallCpu cpu) throws IOException, InterruptedException {
    cpu.calls++;
    return jdkHeadway.send(HttpRequest.newBuilder(uri).GET().build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }

  /** One {@code WebClient} call, body as a string, no Headway: the stub exchange answers. */
  @Benchmark
  public String webClientWithout(CallCpu cpu) {
    cpu.calls++;
    return webClientPlain.get().uri(uri).retrieve().bodyToMono(String.class).block();
  }

  /**
   * One {@code WebClient} call, body as a string, through {@code RateLimitExchangeFilterFunction}:
   * the stub exchange answers.
   */
  @Benchmark
  public String webClientWithHeadway(CallCpu cpu) {
    cpu.calls++;
    return webClientHeadway.get().uri(uri).retrieve().bodyToMono(String.class).block();
  }

  /** Answers every {@code WebClient} exchange at once, where the connector would be. */
  private static final ExchangeFunction STUB_EXCHANGE = request -> Mono.just(
      ClientResponse.create(HttpStatus.OK)
          .headers(headers -> OK_HEADERS.forEach(pair -> headers.add(pair.getFirst(),
              pair.getSecond())))
          .body("{\"ok\":true}")
          .build());

  /**
   * The CPU time of each benchmark thread in a measured iteration, and the calls it made: with
   * more threads than cores (or other work on the machine), JMH's time per call is mostly
   * waiting for a core, while {@code cpuNanos / calls} is the CPU one call costs (spinning
   * included, parking and waiting for a core not). Every call runs on its benchmark thread (the
   * stubs answer there), so that thread's CPU is the call's. JMH sums both counters over the
   * threads.
   */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class CallCpu {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /** CPU nanoseconds of the thread in the iteration (set when it ends). */
    public long cpuNanos;
    /** Calls the thread made in the iteration. */
    public long calls;
    private long startNanos;

    /** Starts the iteration's count. */
    @Setup(Level.Iteration)
    public void start() {
      calls = 0;
      cpuNanos = 0;
      startNanos = THREADS.getCurrentThreadCpuTime();
    }

    /** Ends the iteration's count. */
    @TearDown(Level.Iteration)
    public void stop() {
      cpuNanos = THREADS.getCurrentThreadCpuTime() - startNanos;
    }
  }

  private static String okCall(OkHttpClient client) throws IOException {
    try (Response response = client.newCall(new Request.Builder().url(URL).build()).execute()) {
      return response.body().string();
    }
  }

  /** Answers every OkHttp call at once, where the network would be. */
  private static final class StubNetwork implements Interceptor {
    @Override
    public Response intercept(Chain chain) {
      return new Response.Builder()
          .request(chain.request())
          .protocol(Protocol.HTTP_1_1)
          .code(200)
          .message("OK")
          .headers(OK_HEADERS)
          .body(ResponseBody.create(BODY, JSON))
          .build();
    }
  }

  /**
   * An {@code HttpClient} that answers every request in the calling thread: it hands the body
   * handler the response's head, feeds its subscriber the body when asked for it, and returns
   * what the subscriber made of it.
   */
  private static final class StubHttpClient extends HttpClient {
    @Override
    public <T> HttpResponse<T> send(HttpRequest request,
        HttpResponse.BodyHandler<T> handler) throws IOException {
      HttpResponse.BodySubscriber<T> subscriber = handler.apply(new HttpResponse.ResponseInfo() {
        @Override
        public int statusCode() {
          return 200;
        }

        @Override
        public HttpHeaders headers() {
          return JDK_HEADERS;
        }

        @Override
        public Version version() {
          return Version.HTTP_1_1;
        }
      });
      long[] demand = new long[1];
      subscriber.onSubscribe(new Flow.Subscription() {
        @Override
        public void request(long n) {
          demand[0] += n;
        }

        @Override
        public void cancel() {
          demand[0] = -1;
        }
      });
      if (demand[0] <= 0) {
        throw new IOException("the body subscriber asked for nothing in onSubscribe");
      }
      subscriber.onNext(List.of(ByteBuffer.wrap(BODY)));
      subscriber.onComplete();
      T body = subscriber.getBody().toCompletableFuture().join();
      return new StubResponse<>(request, body);
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request,
        HttpResponse.BodyHandler<T> handler) {
      try {
        return CompletableFuture.completedFuture(send(request, handler));
      } catch (IOException e) {
        return CompletableFuture.failedFuture(e);
      }
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request,
        HttpResponse.BodyHandler<T> handler, HttpResponse.PushPromiseHandler<T> push) {
      return sendAsync(request, handler);
    }

    @Override
    public Optional<CookieHandler> cookieHandler() {
      return Optional.empty();
    }

    @Override
    public Optional<Duration> connectTimeout() {
      return Optional.empty();
    }

    @Override
    public Redirect followRedirects() {
      return Redirect.NEVER;
    }

    @Override
    public Optional<ProxySelector> proxy() {
      return Optional.empty();
    }

    @Override
    public SSLContext sslContext() {
      throw new UnsupportedOperationException("the stub makes no TLS connection");
    }

    @Override
    public SSLParameters sslParameters() {
      throw new UnsupportedOperationException("the stub makes no TLS connection");
    }

    @Override
    public Optional<Authenticator> authenticator() {
      return Optional.empty();
    }

    @Override
    public Version version() {
      return Version.HTTP_1_1;
    }

    @Override
    public Optional<Executor> executor() {
      return Optional.empty();
    }
  }

  /** The response the stub client returns. */
  private record StubResponse<T>(HttpRequest request, T body) implements HttpResponse<T> {
    @Override
    public int statusCode() {
      return 200;
    }

    @Override
    public Optional<HttpResponse<T>> previousResponse() {
      return Optional.empty();
    }

    @Override
    public HttpHeaders headers() {
      return JDK_HEADERS;
    }

    @Override
    public Optional<SSLSession> sslSession() {
      return Optional.empty();
    }

    @Override
    public URI uri() {
      return request.uri();
    }

    @Override
    public HttpClient.Version version() {
      return HttpClient.Version.HTTP_1_1;
    }
  }
}
