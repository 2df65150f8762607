package dev.headway.hostile;

import dev.headway.Pacer;
import dev.headway.jdk.RateLimitedHttpClient;
import dev.headway.okhttp.RateLimitInterceptor;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.Dispatcher;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;

/**
 * The nine ways a user sends through Headway, on clients set up the way the docs say (with their
 * own timeouts), and what one call observed.
 *
 * <p>{@link #SPRING_REST_CLIENT}'s and {@link #WEBCLIENT}'s code is in
 * {@code src/test/java-spring} ({@code SpringRestClient}, {@code SpringWebClient}), a source root
 * of this module only: the module {@code okhttp-interceptor-okhttp4-tests} compiles
 * {@code src/test/java} on a class path without Spring. The tests it runs from here iterate over {@link #installed()}, which leaves Spring out
 * there (and only there); {@link HostileServerSuiteTest} iterates over every constant.
 */
enum Client {
  OKHTTP_EXECUTE, OKHTTP_ENQUEUE, JDK_SEND, JDK_SEND_ASYNC,
  /**
   * Spring's {@code RestClient} with {@code RateLimitClientHttpRequestInterceptor}, on a
   * {@code JdkClientHttpRequestFactory} with a connect and a read timeout.
   */
  SPRING_REST_CLIENT,
  /**
   * Spring's {@code WebClient} with {@code RateLimitExchangeFilterFunction}, on Reactor Netty
   * with a connect and a response timeout.
   */
  WEBCLIENT,
  /** Apache HttpClient 5's classic client with {@code RateLimitExecChainHandler}. */
  HC5_CLASSIC,
  /** Apache HttpClient 5's async client with {@code RateLimitAsyncExecChainHandler}. */
  HC5_ASYNC,
  /** Feign (on Feign's OkHttp client) with {@code RateLimitCapability}. */
  FEIGN_OKHTTP;

  static final Duration MAX_WAIT = Duration.ofSeconds(1);
  static final int MAX_ATTEMPTS = 3;
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(1);
  /** OkHttp's read timeout; the JDK's request timeout (to the response headers). */
  static final Duration READ_TIMEOUT = Duration.ofSeconds(1);
  /** The longest a test waits for anything: far past every bound asserted. */
  static final Duration HARD_LIMIT = Duration.ofSeconds(30);
  /** How long the test reads a body before giving up on it (not part of the call's time). */
  static final Duration DRAIN_LIMIT = Duration.ofMillis(700);
  static final int DRAIN_BYTES = 256 * 1024;

  /** Failures thrown on OkHttp's dispatcher threads, which no caller ever sees. */
  static final List<Throwable> UNCAUGHT = new CopyOnWriteArrayList<>();

  /**
   * What the same kind of client without Headway throws for one call to a server running
   * {@code script}, or {@code null} if it does not throw.
   */
  Throwable plainFailure(RawServer.Script script) throws IOException {
    try (RawServer server = RawServer.start(script)) {
      URI uri = server.uri("/plain");
      long[] at = {0};
      try {
        switch (this) {
          case OKHTTP_EXECUTE -> execute(OKHTTP, uri, at);
          case OKHTTP_ENQUEUE -> enqueue(OKHTTP, uri, at);
          case JDK_SEND, JDK_SEND_ASYNC -> jdk(JDK, uri, this == JDK_SEND_ASYNC, at);
          case SPRING_REST_CLIENT -> spring().plain().send(uri, at);
          case WEBCLIENT -> webClient().plain().send(uri, at);
          case HC5_CLASSIC, HC5_ASYNC, FEIGN_OKHTTP -> AdapterHolder.of(this).plain().send(uri, at);
        }
        return null;
      } catch (Throwable t) {
        return t;
      }
    }
  }

  static final ScheduledExecutorService WATCHDOG =
      Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "hostile-watchdog");
        t.setDaemon(true);
        return t;
      });

  static final OkHttpClient OKHTTP = new OkHttpClient.Builder()
      .dispatcher(dispatcher())
      .connectTimeout(CONNECT_TIMEOUT)
      .readTimeout(READ_TIMEOUT)
      .writeTimeout(READ_TIMEOUT)
      .retryOnConnectionFailure(false) // Every request the server sees is Headway's doing.
      .build();

  static final HttpClient JDK = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(CONNECT_TIMEOUT)
      .executor(pool("hostile-jdk"))
      .build();

  private static final java.util.concurrent.atomic.AtomicBoolean WARM =
      new java.util.concurrent.atomic.AtomicBoolean();

  /**
   * Sends a few calls through every client before the first case runs (once per JVM): class
   * loading and the first compilations on a busy machine can take longer than the short timeouts
   * the cases use. Call it from {@code @BeforeAll}, never from a static initializer (the clients'
   * threads need this class initialised).
   */
  static synchronized void warmUp() {
    if (WARM.getAndSet(true)) {
      return;
    }
    try (RawServer server = RawServer.start(e -> e.write(Http.status(429)
        .header("Content-Type", "application/json").header("Retry-After", "0")
        .body("{\"error\":\"warm-up\"}")))) {
      for (Client client : installed()) {
        Sender sender = client.sender(Pacer.builder().maxWait(MAX_WAIT).build());
        for (int i = 0; i < 3; i++) {
          try {
            sender.send(server.uri("/warm-up"), new long[1]);
          } catch (Throwable t) {
            // Warming up only: the cases check outcomes.
          }
        }
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static Dispatcher dispatcher() {
    Dispatcher dispatcher = new Dispatcher(pool("hostile-okhttp"));
    dispatcher.setMaxRequests(512);
    dispatcher.setMaxRequestsPerHost(512);
    return dispatcher;
  }

  static ThreadPoolExecutor pool(String name) {
    return new ThreadPoolExecutor(0, Integer.MAX_VALUE, 1, TimeUnit.SECONDS,
        new SynchronousQueue<>(), r -> {
          Thread t = new Thread(r, name);
          t.setDaemon(true);
          t.setUncaughtExceptionHandler((thread, e) -> UNCAUGHT.add(e));
          return t;
        });
  }

  /** The longest one call may take: the pacer's budget plus the client's own timeouts. */
  static Duration callBound() {
    Duration perAttempt = CONNECT_TIMEOUT.plus(READ_TIMEOUT)
        .plus(dev.headway.internal.adapter.BodyHints.WAIT);
    return MAX_WAIT.plus(perAttempt.multipliedBy(MAX_ATTEMPTS)).plus(Duration.ofSeconds(1));
  }

  /** What one call observed. */
  record Outcome(int status, Throwable failure, Duration took, int requests) {
    @Override
    public String toString() {
      return (failure == null ? "HTTP " + status : failure.toString()) + " after "
          + took.toMillis() + " ms, " + requests + " request(s)";
    }
  }

  /** A pacer and this kind of client around it. */
  Sender sender(Pacer pacer) {
    return switch (this) {
      case OKHTTP_EXECUTE, OKHTTP_ENQUEUE -> {
        OkHttpClient client = OKHTTP.newBuilder()
            .addInterceptor(RateLimitInterceptor.builder(pacer).build()).build();
        yield (uri, at) -> this == OKHTTP_EXECUTE ? execute(client, uri, at) : enqueue(client, uri, at);
      }
      case JDK_SEND, JDK_SEND_ASYNC -> {
        RateLimitedHttpClient client = RateLimitedHttpClient.wrap(JDK, pacer);
        yield (uri, at) -> jdk(client, uri, this == JDK_SEND_ASYNC, at);
      }
      case SPRING_REST_CLIENT -> spring().paced(pacer);
      case WEBCLIENT -> webClient().paced(pacer);
      case HC5_CLASSIC, HC5_ASYNC, FEIGN_OKHTTP -> AdapterHolder.of(this).paced(pacer);
    };
  }

  /**
   * Returns whether this client sends through java.net.http (the Spring client's request factory
   * is a {@code JdkClientHttpRequestFactory}): it then shares the JDK's own quirks, such as the
   * connection java.net.http leaves open after a response it cannot parse.
   */
  boolean overJavaNetHttp() {
    return this == JDK_SEND || this == JDK_SEND_ASYNC || this == SPRING_REST_CLIENT;
  }

  /**
   * Returns the clients whose code is on the class path: all of them in this module; all but
   * {@link #SPRING_REST_CLIENT}, {@link #WEBCLIENT} and the clients of
   * {@code src/test/java-adapters} where only {@code src/test/java} is compiled (the OkHttp 4.12
   * module).
   */
  static List<Client> installed() {
    return java.util.Arrays.stream(values())
        .filter(c -> c != SPRING_REST_CLIENT || SpringHolder.SPRING != null)
        .filter(c -> c != WEBCLIENT || SpringHolder.WEBCLIENT != null)
        .filter(AdapterHolder::compiled).toList();
  }

  /** A client whose code lives in another source root: a sender with and without Headway. */
  interface External {
    /** A client of this kind with Headway, pacing with {@code pacer}. */
    Sender paced(Pacer pacer);

    /** The same client without Headway. */
    Sender plain();
  }

  private static External spring() {
    External spring = SpringHolder.SPRING;
    if (spring == null) {
      // Never silently: a test that asks for the Spring client where it is not compiled fails.
      throw new IllegalStateException("dev.headway.hostile.SpringRestClient is not on the class"
          + " path: it is compiled from hostile-server-tests/src/test/java-spring");
    }
    return spring;
  }

  private static External webClient() {
    External webClient = SpringHolder.WEBCLIENT;
    if (webClient == null) {
      throw new IllegalStateException("dev.headway.hostile.SpringWebClient is not on the class"
          + " path: it is compiled from hostile-server-tests/src/test/java-spring");
    }
    return webClient;
  }

  /** Loads the Spring clients when first asked (after the enum's own initialisation). */
  private static final class SpringHolder {
    static final External SPRING = load("dev.headway.hostile.SpringRestClient");
    static final External WEBCLIENT = load("dev.headway.hostile.SpringWebClient");

    static External load(String name) {
      try {
        return (External) Class.forName(name).getDeclaredConstructor().newInstance();
      } catch (ClassNotFoundException e) {
        return null; // not compiled here: only the OkHttp 4.12 module, see installed()
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(name, e);
      }
    }
  }

  /**
   * The clients of Headway's other adapters, each an {@link External} in
   * {@code src/test/java-adapters} (a source root of this module only, as the Spring client's is),
   * loaded by name: {@link #HC5_CLASSIC} {@code HttpClient5Classic}, {@link #HC5_ASYNC}
   * {@code HttpClient5Async}, {@link #FEIGN_OKHTTP} {@code FeignOkHttp}.
   */
  private static final class AdapterHolder {
    private static final java.util.Map<Client, External> LOADED = load();

    private static java.util.Map<Client, External> load() {
      java.util.Map<Client, External> loaded = new java.util.EnumMap<>(Client.class);
      java.util.Map.of(HC5_CLASSIC, "HttpClient5Classic", HC5_ASYNC, "HttpClient5Async",
          FEIGN_OKHTTP, "FeignOkHttp").forEach((client, name) -> {
            External external = SpringHolder.load("dev.headway.hostile." + name);
            if (external != null) {
              loaded.put(client, external);
            }
          });
      return loaded;
    }

    /** Returns whether {@code client} is one of these, absent here; true for the others. */
    static boolean compiled(Client client) {
      return !java.util.Set.of(HC5_CLASSIC, HC5_ASYNC, FEIGN_OKHTTP).contains(client)
          || LOADED.containsKey(client);
    }

    static External of(Client client) {
      External external = LOADED.get(client);
      if (external == null) {
        throw new IllegalStateException(client + "'s code is not on the class path: it is"
            + " compiled from hostile-server-tests/src/test/java-adapters");
      }
      return external;
    }
  }

  /** Sends one request and returns its status, or throws what the caller would see. */
  @FunctionalInterface
  interface Sender {
    /**
     * @param respondedAt receives {@link System#nanoTime()} when the response (headers) came back,
     *     before its body is read
     */
    int send(URI uri, long[] respondedAt) throws Throwable;
  }

  private static int execute(OkHttpClient client, URI uri, long[] at) throws IOException {
    Call call = client.newCall(new Request.Builder().url(uri.toString()).build());
    Response response = call.execute();
    at[0] = System.nanoTime();
    return readAndClose(call, response);
  }

  private static int enqueue(OkHttpClient client, URI uri, long[] at) throws Throwable {
    Call call = client.newCall(new Request.Builder().url(uri.toString()).build());
    CompletableFuture<Response> outcome = new CompletableFuture<>();
    call.enqueue(new Callback() {
      @Override
      public void onFailure(Call c, IOException e) {
        // OkHttp reports a non-I/O failure of an interceptor as "canceled due to" it, and
        // rethrows it on the dispatcher thread: the caller's code never sees the real one.
        for (Throwable suppressed : e.getSuppressed()) {
          if (!(suppressed instanceof IOException)) {
            outcome.completeExceptionally(suppressed);
            return;
          }
        }
        outcome.completeExceptionally(e);
      }

      @Override
      public void onResponse(Call c, Response response) {
        at[0] = System.nanoTime();
        outcome.complete(response);
      }
    });
    Response response;
    try {
      response = outcome.get(HARD_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw e.getCause();
    } catch (TimeoutException e) {
      call.cancel();
      throw new AssertionError("enqueue: no outcome after " + HARD_LIMIT);
    }
    return readAndClose(call, response);
  }

  private static int readAndClose(Call call, Response response) {
    int status = response.code();
    ScheduledFuture<?> stop = WATCHDOG.schedule(call::cancel, DRAIN_LIMIT.toMillis(),
        TimeUnit.MILLISECONDS);
    try (response) {
      ResponseBody body = response.body();
      if (body != null) {
        drain(body.byteStream());
      }
    } catch (IOException | RuntimeException e) {
      // The body is the server's problem and the user's: the call itself is what is checked.
    } finally {
      stop.cancel(false);
    }
    return status;
  }

  private static int jdk(HttpClient client, URI uri, boolean async, long[] at)
      throws Throwable {
    HttpRequest request = HttpRequest.newBuilder(uri).timeout(READ_TIMEOUT).build();
    HttpResponse<InputStream> response;
    if (async) {
      CompletableFuture<HttpResponse<InputStream>> future =
          client.sendAsync(request, HttpResponse.BodyHandlers.ofInputStream());
      try {
        response = future.get(HARD_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        throw e.getCause();
      } catch (TimeoutException e) {
        future.cancel(true);
        throw new AssertionError("sendAsync: no outcome after " + HARD_LIMIT);
      }
    } else {
      // On a thread of its own, so that a client that never returns (its selector thread killed
      // by an Error thrown in a body handler, say) fails the case instead of hanging the suite.
      CompletableFuture<HttpResponse<InputStream>> sent = new CompletableFuture<>();
      Thread caller = new Thread(() -> {
        try {
          sent.complete(client.send(request, HttpResponse.BodyHandlers.ofInputStream()));
        } catch (Throwable t) {
          sent.completeExceptionally(t);
        }
      }, "hostile-sync-caller");
      caller.setDaemon(true);
      caller.start();
      try {
        response = sent.get(HARD_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        throw e.getCause();
      } catch (TimeoutException e) {
        caller.interrupt();
        throw new AssertionError("send: no outcome after " + HARD_LIMIT);
      }
    }
    at[0] = System.nanoTime();
    InputStream body = response.body();
    ScheduledFuture<?> stop = WATCHDOG.schedule(() -> closeQuietly(body), DRAIN_LIMIT.toMillis(),
        TimeUnit.MILLISECONDS);
    try (body) {
      drain(body);
    } catch (IOException | RuntimeException e) {
      // As above: the body is not what is checked.
    } finally {
      stop.cancel(false);
    }
    return response.statusCode();
  }

  static void drain(InputStream in) throws IOException {
    byte[] buffer = new byte[8192];
    long total = 0;
    for (int n; total < DRAIN_BYTES && (n = in.read(buffer)) != -1; ) {
      total += n;
    }
  }

  static void closeQuietly(InputStream in) {
    try {
      in.close();
    } catch (IOException e) {
      // Giving up on it anyway.
    }
  }
}
