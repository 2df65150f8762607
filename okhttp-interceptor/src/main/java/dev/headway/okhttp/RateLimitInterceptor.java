package dev.headway.okhttp;

/** TODO(issue 4): the OkHttp interceptor. */
public final class RateLimitInterceptor {
  private RateLimitInterceptor() {}
}
