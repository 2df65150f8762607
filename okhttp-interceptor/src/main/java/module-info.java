/** Headway for OkHttp: {@link dev.headway.okhttp.RateLimitInterceptor}. */
module dev.headway.okhttp {
  requires transitive dev.headway.core;
  requires okhttp3;
  requires dev.failsafe.core;
  requires static org.jspecify;

  exports dev.headway.okhttp;
}
