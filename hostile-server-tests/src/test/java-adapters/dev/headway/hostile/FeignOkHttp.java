package dev.headway.hostile;

import dev.headway.Pacer;
import dev.headway.feign.RateLimitCapability;
import feign.Feign;
import feign.Request;
import feign.RequestLine;
import feign.Response;
import feign.RetryableException;
import feign.Retryer;
import feign.okhttp.OkHttpClient;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@link Client#FEIGN_OKHTTP}: a Feign client with {@link RateLimitCapability} added by
 * {@code addCapability}, and the same client without it.
 *
 * <p>Feign sends with its OkHttp client over {@link Client#OKHTTP} (its timeouts, and no retry of
 * OkHttp's own on a failed connection), with request options of the same timeouts; Feign's
 * retryer is {@link Retryer#NEVER_RETRY}, as Spring Cloud OpenFeign's default is. Feign's
 * default {@code Client} was not taken: it sends through {@code HttpURLConnection}, which sends
 * a GET a second time by itself when the connection ends before a response, and Feign's default
 * retryer retries every {@link IOException} five times: the requests the server counts per call
 * would no longer be Headway's alone.
 *
 * <p>The method returns {@link Response}, so that a 4xx or 5xx is a status and a body, not an
 * exception. Feign reads a body of known length up to 8 KiB whole before such a method returns
 * (with or without Headway: a 52-byte body trickled a byte every 150 ms takes 7.8 s), so the
 * instant the response's head came back is taken where Feign's {@code Client} returns it, below
 * the capability: the last attempt's (the capability's own reading of that response is bounded
 * by the body-hint limit, which the call bound includes). Feign reports a client's {@link IOException} as a {@link RetryableException}
 * carrying it: that is Feign's form of "an IOException reached the caller", so the
 * {@link IOException} is what the suite sees. Anything else Feign throws reaches the suite as it
 * is and must be what the same client throws without Headway.
 */
final class FeignOkHttp implements Client.External {
  /** Requests to whole URIs: a {@link URI} parameter replaces the target's URL. */
  interface Api {
    @RequestLine("GET")
    Response get(URI uri);
  }

  /** When the last response's head came back, per calling thread (see the class comment). */
  private static final ThreadLocal<long[]> HEAD_AT = new ThreadLocal<>();

  private static final Api PLAIN = builder().target(Api.class, "http://127.0.0.1");

  /** Loaded by {@link Client} by name. */
  FeignOkHttp() {}

  private static Feign.Builder builder() {
    return Feign.builder()
        .client(timed(new OkHttpClient(Client.OKHTTP)))
        .options(new Request.Options(Client.CONNECT_TIMEOUT, Client.READ_TIMEOUT, true))
        .retryer(Retryer.NEVER_RETRY);
  }

  /** Feign's client, noting when each response's head came back. */
  private static feign.Client timed(feign.Client client) {
    return (request, options) -> {
      Response response = client.execute(request, options);
      long[] at = HEAD_AT.get();
      if (at != null) {
        at[0] = System.nanoTime();
      }
      return response;
    };
  }

  @Override
  public Client.Sender paced(Pacer pacer) {
    Api api = builder().addCapability(RateLimitCapability.create(pacer))
        .target(Api.class, "http://127.0.0.1");
    return (uri, at) -> send(api, uri, at);
  }

  @Override
  public Client.Sender plain() {
    return (uri, at) -> send(PLAIN, uri, at);
  }

  /** Sends one GET on a thread of its own, so that a call that never returns fails the case. */
  private static int send(Api api, URI uri, long[] at) throws Throwable {
    CompletableFuture<Integer> sent = new CompletableFuture<>();
    Thread caller = new Thread(() -> {
      try {
        sent.complete(call(api, uri, at));
      } catch (Throwable t) {
        sent.completeExceptionally(t);
      }
    }, "hostile-feign-caller");
    caller.setDaemon(true);
    caller.start();
    try {
      return sent.get(Client.HARD_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable failure = e.getCause();
      if (failure instanceof RetryableException && failure.getCause() instanceof IOException io) {
        throw io;
      }
      throw failure;
    } catch (TimeoutException e) {
      Throwable where = new Throwable("where the caller was");
      where.setStackTrace(caller.getStackTrace());
      caller.interrupt();
      throw new AssertionError("Feign: no outcome after " + Client.HARD_LIMIT, where);
    }
  }

  private static int call(Api api, URI uri, long[] at) {
    HEAD_AT.set(at);
    Response response;
    try {
      response = api.get(uri);
    } catch (RuntimeException e) {
      at[0] = 0; // an earlier attempt's head: the call's time is its end
      throw e;
    } finally {
      HEAD_AT.remove();
    }
    int status = response.status();
    ScheduledFuture<?> stop = Client.WATCHDOG.schedule(response::close,
        Client.DRAIN_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
    try (response) {
      if (response.body() != null) {
        try (InputStream body = response.body().asInputStream()) {
          Client.drain(body);
        }
      }
    } catch (IOException | RuntimeException e) {
      // The body is the server's problem and the user's: the call itself is what is checked.
    } finally {
      stop.cancel(false);
    }
    return status;
  }
}
