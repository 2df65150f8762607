package dev.headway.benchmarks.overhead;

import dev.headway.Pacer;
import dev.headway.jdk.RateLimitedHttpClient;
import dev.headway.okhttp.RateLimitInterceptor;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * When {@code N} callers that call at once fail against a server that never answers (it accepts
 * the connection, reads the request and says nothing), with and without Headway, in real time:
 * OkHttp ({@code execute}, a read timeout), {@code java.net.http} ({@code send}, a request
 * timeout), Apache HttpClient 5 (classic, a {@code RequestConfig} response timeout) and Feign
 * (its default client, a read timeout, no retryer), each with a fresh default
 * {@code Pacer.create()} (first contact: the probes go, the
 * callers behind them wait for an answer as long as the hold's patience allows). Prints, per
 * client, timeout and run, the instants (ms from the start) at which the calls failed, sorted,
 * and how much later the last one failed than without Headway.
 *
 * <p>Usage: {@code HangingServerCalls [--callers N] [--timeouts-ms MS,MS...]
 * [--clients okhttp,jdk,httpclient5,feign] [--runs K]} (defaults 8; 10000,1000; okhttp,jdk;
 * 1). Not thread-safe;
 * a program.
 */
public final class HangingServerCalls {
  private HangingServerCalls() {}

  /** Runs the measurement; see the class comment for the options. */
  public static void main(String[] args) throws Exception {
    int callers = 8;
    long[] timeouts = {10_000, 1_000};
    List<String> clients = List.of("okhttp", "jdk");
    int runs = 1;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--callers" -> callers = Integer.parseInt(args[i + 1]);
        case "--timeouts-ms" -> timeouts = Arrays.stream(args[i + 1].split(","))
            .mapToLong(Long::parseLong).toArray();
        case "--clients" -> clients = List.of(args[i + 1].split(","));
        case "--runs" -> runs = Integer.parseInt(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    System.out.println("client,timeout_ms,run,headway,failed_at_ms,last_ms,last_past_without_ms");
    try (Silent server = new Silent()) {
      for (String client : clients) {
        for (long timeout : timeouts) {
          for (int run = 0; run < runs; run++) {
            List<Long> without = calls(client, server, callers, timeout, false);
            List<Long> with = calls(client, server, callers, timeout, true);
            print(client, timeout, run, "without", without, 0);
            print(client, timeout, run, "with", with, last(with) - last(without));
          }
        }
      }
    }
  }

  private static long last(List<Long> failedAt) {
    return failedAt.isEmpty() ? -1 : failedAt.get(failedAt.size() - 1);
  }

  private static void print(String client, long timeout, int run, String headway,
      List<Long> failedAt, long past) {
    System.out.printf("%s,%d,%d,%s,%s,%d,%d%n", client, timeout, run, headway,
        failedAt.stream().map(String::valueOf).collect(Collectors.joining(";")), last(failedAt),
        past);
  }

  /** Starts the callers at once and returns when each failed (ms), sorted; -1 if answered. */
  private static List<Long> calls(String client, Silent server, int callers, long timeoutMs,
      boolean headway) throws InterruptedException {
    Duration timeout = Duration.ofMillis(timeoutMs);
    URI uri = URI.create("http://127.0.0.1:" + server.port() + "/items");
    List<Long> failedAt = new CopyOnWriteArrayList<>();
    CountDownLatch done = new CountDownLatch(callers);
    Runnable call;
    OkHttpClient ok = null;
    if (client.equals("okhttp")) {
      OkHttpClient.Builder builder = new OkHttpClient.Builder().readTimeout(timeout);
      if (headway) {
        builder.addInterceptor(RateLimitInterceptor.create(Pacer.create()));
      }
      OkHttpClient built = builder.build();
      ok = built;
      call = () -> {
        try (Response response = built.newCall(new Request.Builder().url(uri.toString()).build())
            .execute()) {
          failedAt.add(-1L);
        } catch (IOException e) {
          failedAt.add(System.nanoTime());
        }
      };
    } else if (client.equals("jdk")) {
      HttpClient plain = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      HttpClient built = headway ? RateLimitedHttpClient.wrap(plain, Pacer.create()) : plain;
      HttpRequest request = HttpRequest.newBuilder(uri).timeout(timeout).build();
      call = () -> {
        try {
          built.send(request, HttpResponse.BodyHandlers.discarding());
          failedAt.add(-1L);
        } catch (IOException e) {
          failedAt.add(System.nanoTime());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      };
    } else if (client.equals("httpclient5")) {
      org.apache.hc.client5.http.impl.classic.HttpClientBuilder builder =
          org.apache.hc.client5.http.impl.classic.HttpClients.custom()
              .setDefaultRequestConfig(org.apache.hc.client5.http.config.RequestConfig.custom()
                  .setResponseTimeout(org.apache.hc.core5.util.Timeout.ofMilliseconds(timeoutMs))
                  .build())
              .setConnectionManager(org.apache.hc.client5.http.impl.io
                  .PoolingHttpClientConnectionManagerBuilder.create()
                  .setMaxConnPerRoute(callers).setMaxConnTotal(callers).build())
              .disableAutomaticRetries();
      org.apache.hc.client5.http.impl.classic.CloseableHttpClient built = headway
          ? dev.headway.httpclient5.RateLimitExecChainHandler.create(Pacer.create())
              .addTo(builder).build()
          : builder.build();
      call = () -> {
        try {
          built.execute(new org.apache.hc.client5.http.classic.methods.HttpGet(uri),
              response -> response.getCode());
          failedAt.add(-1L);
        } catch (IOException e) {
          failedAt.add(System.nanoTime());
        }
      };
    } else if (client.equals("feign")) {
      feign.Feign.Builder builder = feign.Feign.builder()
          .options(new feign.Request.Options(10, TimeUnit.SECONDS, timeoutMs,
              TimeUnit.MILLISECONDS, true))
          .retryer(feign.Retryer.NEVER_RETRY);
      if (headway) {
        builder.addCapability(dev.headway.feign.RateLimitCapability.create(Pacer.create()));
      }
      Items items = builder.target(Items.class, "http://127.0.0.1:" + server.port());
      call = () -> {
        try {
          items.get();
          failedAt.add(-1L);
        } catch (RuntimeException e) {
          failedAt.add(System.nanoTime()); // Feign's RetryableException, a timeout
        }
      };
    } else {
      throw new IllegalArgumentException("unknown client " + client);
    }
    long start = System.nanoTime();
    for (int i = 0; i < callers; i++) {
      Thread thread = new Thread(() -> {
        try {
          call.run();
        } finally {
          done.countDown();
        }
      }, "hanging-caller-" + i);
      thread.setDaemon(true);
      thread.start();
    }
    if (!done.await(timeoutMs * callers + 60_000, TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException("callers still running");
    }
    if (ok != null) {
      ok.dispatcher().executorService().shutdown();
      ok.connectionPool().evictAll();
    }
    server.dropConnections();
    List<Long> out = new ArrayList<>();
    for (long at : failedAt) {
      out.add(at < 0 ? -1 : TimeUnit.NANOSECONDS.toMillis(at - start));
    }
    Collections.sort(out);
    return out;
  }

  /** The Feign client of the measurement. */
  interface Items {
    @feign.RequestLine("GET /items")
    String get();
  }

  /** A loopback server that reads whatever it is sent and never answers. */
  private static final class Silent implements AutoCloseable {
    private final ServerSocket socket;
    private final List<Socket> open = new CopyOnWriteArrayList<>();

    Silent() throws IOException {
      socket = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
      Thread accept = new Thread(this::accept, "hanging-server");
      accept.setDaemon(true);
      accept.start();
    }

    int port() {
      return socket.getLocalPort();
    }

    private void accept() {
      while (!socket.isClosed()) {
        try {
          Socket connection = socket.accept();
          open.add(connection);
          Thread reader = new Thread(() -> drain(connection), "hanging-server-read");
          reader.setDaemon(true);
          reader.start();
        } catch (IOException e) {
          return;
        }
      }
    }

    private static void drain(Socket connection) {
      byte[] buffer = new byte[4096];
      try (InputStream in = connection.getInputStream()) {
        while (in.read(buffer) >= 0) {
          // read and say nothing
        }
      } catch (IOException e) {
        // closed
      }
    }

    void dropConnections() {
      for (Socket connection : open) {
        try {
          connection.close();
        } catch (IOException e) {
          // already closed
        }
      }
      open.clear();
    }

    @Override
    public void close() throws IOException {
      dropConnections();
      socket.close();
    }
  }
}
