package dev.headway.internal.adapter;

import dev.headway.RequestInfo;
import java.net.URI;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The request a call of Headway's paces on this thread, so that an adapter of Headway's nested
 * inside it on the same call path lets that request through instead of pacing it a second time:
 * the same interceptor added twice to one client, or two different adapters one inside the other
 * (a Spring interceptor on a {@code RestClient} whose request factory sends through a
 * {@code RateLimitedHttpClient}, or through an HttpClient 5 client with Headway's handler). Each
 * request is then paced once, by the outermost adapter, with its pacer, {@code maxWait} and
 * {@code maxAttempts}; its retries pass through the inner one too.
 *
 * <p>The rule: while {@link PacedExchange#run} paces a call, and while an asynchronous call
 * ({@link PacedExchange#runAsync}) hands one attempt to its client, this thread carries the
 * call's request; a call that starts on this thread meanwhile for the same method and URI (scheme,
 * host and port, path and query) is the same request one adapter further in. A request to another
 * URI sent from within the chain (an interceptor fetching a token) is paced on its own.
 *
 * <p>What it does not cover: a nested adapter that sends from another thread than the one the
 * outer adapter sends on (a Reactor operator that switches threads, an executor of the
 * application's). WebClient's filter marks its requests in the Reactor context as well, which
 * covers two of its filters on one client whatever the threads.
 *
 * <p>Thread-safe: each thread has its own mark.
 */
final class PacedOutside {
  private static final ThreadLocal<@Nullable RequestInfo> PACING = new ThreadLocal<>();

  private PacedOutside() {}

  /** Returns whether a call of Headway's on this thread paces {@code request} already. */
  static boolean pacing(RequestInfo request) {
    RequestInfo outer = PACING.get();
    return outer != null && sameRequest(outer, request);
  }

  /** Marks {@code request} as paced on this thread; returns the mark to {@link #restore}. */
  static @Nullable RequestInfo mark(RequestInfo request) {
    RequestInfo outer = PACING.get();
    PACING.set(request);
    return outer;
  }

  /** Puts back the mark {@link #mark} returned: the outer call's request, or none. */
  static void restore(@Nullable RequestInfo outer) {
    if (outer == null) {
      PACING.remove();
    } else {
      PACING.set(outer);
    }
  }

  private static boolean sameRequest(RequestInfo outer, RequestInfo inner) {
    return outer == inner || outer.method().equalsIgnoreCase(inner.method())
        && sameTarget(outer.uri(), inner.uri());
  }

  /** The same scheme, host, port (a default one spelled or not), path and query. */
  private static boolean sameTarget(URI a, URI b) {
    String scheme = lower(a.getScheme());
    return scheme.equals(lower(b.getScheme()))
        && lower(a.getHost()).equals(lower(b.getHost()))
        && port(a, scheme) == port(b, scheme)
        && path(a).equals(path(b))
        && String.valueOf(a.getRawQuery()).equals(String.valueOf(b.getRawQuery()));
  }

  private static String lower(@Nullable String s) {
    return s == null ? "" : s.toLowerCase(Locale.ROOT);
  }

  private static int port(URI uri, String scheme) {
    if (uri.getPort() >= 0) {
      return uri.getPort();
    }
    return switch (scheme) {
      case "http", "ws" -> 80;
      case "https", "wss" -> 443;
      default -> -1;
    };
  }

  private static String path(URI uri) {
    String path = uri.getRawPath();
    return path == null || path.isEmpty() ? "/" : path;
  }
}
