package dev.headway.jdk;

import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.CookieManager;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * A delegate with a distinct value for every accessor, which also declares the lifecycle methods
 * Java 21 added to {@link HttpClient}, recording calls to them — as a Java 21 client would have.
 * Public, so that the wrapper's public method-handle lookup can reach it.
 */
public final class Java21LikeClient extends HttpClient {
  final List<String> calls = new ArrayList<>();
  final CookieHandler cookies = new CookieManager();
  final ProxySelector proxy = ProxySelector.of(new InetSocketAddress("127.0.0.1", 3128));
  final Authenticator authenticator = new Authenticator() {};
  final Executor executor = Runnable::run;
  final SSLParameters sslParameters = new SSLParameters(new String[] {"TLS_AES_128_GCM_SHA256"});
  final SSLContext sslContext;
  boolean terminated;

  public Java21LikeClient() throws Exception {
    sslContext = SSLContext.getInstance("TLSv1.3");
    sslContext.init(null, null, null);
  }

  @Override
  public Optional<CookieHandler> cookieHandler() {
    return Optional.of(cookies);
  }

  @Override
  public Optional<Duration> connectTimeout() {
    return Optional.of(Duration.ofMillis(1234));
  }

  @Override
  public Redirect followRedirects() {
    return Redirect.NORMAL;
  }

  @Override
  public Optional<ProxySelector> proxy() {
    return Optional.of(proxy);
  }

  @Override
  public SSLContext sslContext() {
    return sslContext;
  }

  @Override
  public SSLParameters sslParameters() {
    return sslParameters;
  }

  @Override
  public Optional<Authenticator> authenticator() {
    return Optional.of(authenticator);
  }

  @Override
  public Version version() {
    return Version.HTTP_2;
  }

  @Override
  public Optional<Executor> executor() {
    return Optional.of(executor);
  }

  @Override
  public WebSocket.Builder newWebSocketBuilder() {
    calls.add("newWebSocketBuilder");
    throw new UnsupportedOperationException("recorded");
  }

  @Override
  public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
    throw new UnsupportedOperationException();
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request,
      HttpResponse.BodyHandler<T> handler) {
    throw new UnsupportedOperationException();
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request,
      HttpResponse.BodyHandler<T> handler, HttpResponse.PushPromiseHandler<T> push) {
    throw new UnsupportedOperationException();
  }

  /** Java 21's {@code HttpClient.shutdown()}. */
  public void shutdown() {
    calls.add("shutdown");
  }

  /** Java 21's {@code HttpClient.shutdownNow()}. */
  public void shutdownNow() {
    calls.add("shutdownNow");
  }

  /** Java 21's {@code HttpClient.isTerminated()}. */
  public boolean isTerminated() {
    calls.add("isTerminated");
    return terminated;
  }

  /** Java 21's {@code HttpClient.awaitTermination(Duration)}. */
  public boolean awaitTermination(Duration duration) {
    calls.add("awaitTermination " + duration);
    return terminated;
  }

  /** Java 21's {@code HttpClient.close()}. */
  public void close() {
    calls.add("close");
  }
}
