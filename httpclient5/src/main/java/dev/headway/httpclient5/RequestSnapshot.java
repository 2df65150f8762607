package dev.headway.httpclient5;

import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.ProtocolVersion;
import org.apache.hc.core5.http.message.BasicClassicHttpRequest;
import org.apache.hc.core5.http.message.BasicHttpRequest;
import org.apache.hc.core5.net.URIAuthority;
import org.jspecify.annotations.Nullable;

/**
 * A request as it reached a handler, kept to send it again: the elements below the handler
 * (protocol interceptors, authentication) add to the request they are given, so a retry sends a
 * fresh request made from this. Taken on every request that may be retried, so it is cheap: the
 * request's parts and its header array, no parsing (HttpClient's own {@code copy} builders parse
 * the request URI again, several microseconds a call). Immutable.
 */
final class RequestSnapshot {
  private final String method;
  private final @Nullable String scheme;
  private final @Nullable URIAuthority authority;
  private final @Nullable String path;
  private final @Nullable ProtocolVersion version;
  private final Header[] headers;

  private RequestSnapshot(HttpRequest request) {
    this.method = request.getMethod();
    this.scheme = request.getScheme();
    this.authority = request.getAuthority();
    this.path = request.getPath();
    this.version = request.getVersion();
    this.headers = request.getHeaders(); // a copy of the request's array
  }

  static RequestSnapshot of(HttpRequest request) {
    return new RequestSnapshot(request);
  }

  /** Returns a fresh classic request as the snapshot was, with {@code entity}. */
  ClassicHttpRequest classic(@Nullable HttpEntity entity) {
    BasicClassicHttpRequest request = new BasicClassicHttpRequest(method, scheme, authority,
        path);
    request.setVersion(version);
    request.setHeaders(headers);
    request.setEntity(entity);
    return request;
  }

  /** Returns a fresh request as the snapshot was (its entity goes separately, asynchronously). */
  HttpRequest async() {
    BasicHttpRequest request = new BasicHttpRequest(method, scheme, authority, path);
    request.setVersion(version);
    request.setHeaders(headers);
    return request;
  }
}
