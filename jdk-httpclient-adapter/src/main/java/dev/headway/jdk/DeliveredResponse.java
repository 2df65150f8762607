package dev.headway.jdk;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Optional;
import javax.net.ssl.SSLSession;

/**
 * A response whose body was kept by Headway while it waited to retry, then given to the caller's
 * body handler: everything but the body comes from the response the client returned. Immutable.
 */
final class DeliveredResponse<T> implements HttpResponse<T> {
  private final HttpResponse<T> response;
  private final T body;

  DeliveredResponse(HttpResponse<T> response, T body) {
    this.response = response;
    this.body = body;
  }

  @Override
  public int statusCode() {
    return response.statusCode();
  }

  @Override
  public HttpRequest request() {
    return response.request();
  }

  @Override
  public Optional<HttpResponse<T>> previousResponse() {
    return response.previousResponse();
  }

  @Override
  public HttpHeaders headers() {
    return response.headers();
  }

  @Override
  public T body() {
    return body;
  }

  @Override
  public Optional<SSLSession> sslSession() {
    return response.sslSession();
  }

  @Override
  public URI uri() {
    return response.uri();
  }

  @Override
  public HttpClient.Version version() {
    return response.version();
  }

  @Override
  public String toString() {
    return response.toString();
  }
}
