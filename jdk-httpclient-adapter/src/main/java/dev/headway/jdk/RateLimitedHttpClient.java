package dev.headway.jdk;

/** TODO(issue 5): the wrapped HttpClient. */
public final class RateLimitedHttpClient {
  private RateLimitedHttpClient() {}
}
