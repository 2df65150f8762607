/** Headway for OkHttp: {@link dev.headway.okhttp.RateLimitInterceptor}. */
// OkHttp's types are part of this module's API (Interceptor), so users read okhttp3 through it;
// OkHttp ships only an Automatic-Module-Name, hence the suppressed lint.
@SuppressWarnings({"requires-transitive-automatic", "requires-automatic"})
module dev.headway.okhttp {
  requires transitive dev.headway.core;
  requires transitive okhttp3;
  // Okio (OkHttp's I/O library, always beside it) reads a throttled body for hints.
  requires okio;
  requires static org.jspecify;

  exports dev.headway.okhttp;
}
