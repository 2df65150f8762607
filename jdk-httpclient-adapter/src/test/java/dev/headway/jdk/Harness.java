package dev.headway.jdk;

import dev.headway.Pacer;
import dev.headway.testing.VirtualClock;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;

/**
 * A MockWebServer on an ephemeral port, a virtual clock, a pacer running on that clock, and a
 * {@link RateLimitedHttpClient} around a real JDK client.
 */
final class Harness implements AutoCloseable {
  /** Real-time bound on anything a test waits for; virtual time is what the tests measure. */
  static final Duration REAL_TIMEOUT = Duration.ofSeconds(20);

  final MockWebServer server = new MockWebServer();
  final VirtualClock clock = VirtualClock.create();
  final HttpClient jdk;
  final Pacer pacer;
  final RateLimitedHttpClient client;

  Harness() throws IOException {
    this(b -> b, HttpClient.newBuilder());
  }

  Harness(UnaryOperator<Pacer.Builder> config) throws IOException {
    this(config, HttpClient.newBuilder());
  }

  Harness(UnaryOperator<Pacer.Builder> config, HttpClient.Builder jdkBuilder) throws IOException {
    this(config, jdkBuilder, UnaryOperator.identity());
  }

  /** With {@code around} between Headway and the real JDK client (it sees what Headway sends). */
  Harness(UnaryOperator<Pacer.Builder> config, HttpClient.Builder jdkBuilder,
      UnaryOperator<HttpClient> around) throws IOException {
    server.start();
    jdk = around.apply(jdkBuilder.version(HttpClient.Version.HTTP_1_1).build());
    pacer = config.apply(Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)).build();
    client = RateLimitedHttpClient.wrap(jdk, pacer);
  }

  URI uri(String path) {
    return server.url(path).uri();
  }

  HttpRequest get(String path) {
    return HttpRequest.newBuilder(uri(path)).build();
  }

  void enqueue(int code, String... headersAndBody) {
    MockResponse.Builder builder = new MockResponse.Builder().code(code);
    int i = 0;
    for (; i + 1 < headersAndBody.length; i += 2) {
      builder.addHeader(headersAndBody[i], headersAndBody[i + 1]);
    }
    if (i < headersAndBody.length) {
      builder.body(headersAndBody[i]);
    }
    server.enqueue(builder.build());
  }

  int requests() {
    return server.getRequestCount();
  }

  /** Sends one request through {@code mode} and returns the response, driving the clock. */
  HttpResponse<String> call(Mode mode, HttpRequest request) throws Exception {
    return drive(mode.start(client, request, HttpResponse.BodyHandlers.ofString()));
  }

  /**
   * Lets virtual time pass until {@code call} completes: whenever nothing completes for a few real
   * milliseconds (HTTP exchanges happen in real time), the clock moves to its next event, the
   * earliest deadline of a sleeping caller or a scheduled task. Time never runs ahead of a
   * response still on its way, however often a waiter polls. Returns the response or throws the
   * call's exception.
   */
  <T> HttpResponse<T> drive(Mode.Call<T> call) throws Exception {
    awaitDone(call);
    try {
      return call.future().get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Exception cause) {
        throw cause;
      }
      throw e;
    }
  }

  private void awaitDone(Mode.Call<?> call) throws InterruptedException {
    long deadline = System.nanoTime() + REAL_TIMEOUT.toNanos();
    while (!call.future().isDone()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("call did not complete; clock at " + clock.elapsed());
      }
      try {
        call.future().get(5, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        clock.advanceToNextEvent(); // nothing happened for a while: let the next event happen
      } catch (ExecutionException e) {
        // Done: the loop condition decides.
      } catch (java.util.concurrent.CancellationException e) {
        return;
      }
    }
  }

  /** Blocks in real time until {@code mode}'s caller waits on the clock. */
  void awaitWaiting(Mode mode, int count) throws InterruptedException {
    if (mode == Mode.SYNC) {
      clock.awaitSleepers(count, REAL_TIMEOUT);
      return;
    }
    // Asynchronous waiters due at one instant share one task of the clock: count the callers
    // the pacer says wait (or the clock's tasks, for a delay before a retry, which is no place
    // in the pacer's line), then let the clock's tasks settle.
    long deadline = System.nanoTime() + REAL_TIMEOUT.toNanos();
    int tasks = -1;
    int waiting = -1;
    while (Math.max(waiting, tasks) < count || tasks != clock.pendingTasks()
        || waiting != waiting()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError(count + " callers did not wait within " + REAL_TIMEOUT
            + " (" + waiting() + " wait, " + clock.pendingTasks() + " tasks)");
      }
      tasks = clock.pendingTasks();
      waiting = waiting();
      Thread.sleep(20); // real time: waiting for the callers' threads, not for the pacer
    }
  }

  /** How many callers the pacer counts as waiting on the server's partition. */
  int waiting() {
    return pacer.quota(uri("/")).waiting();
  }

  @Override
  public void close() {
    server.close();
  }
}
