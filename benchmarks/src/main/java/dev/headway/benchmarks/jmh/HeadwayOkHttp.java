package dev.headway.benchmarks.jmh;

import okhttp3.OkHttpClient;

/** How the benchmarks add Headway to an OkHttp client (one place, for when the API moves). */
final class HeadwayOkHttp {
  private HeadwayOkHttp() {}

  /** Returns a client sharing {@code base}'s pools, with Headway's interceptor added. */
  static OkHttpClient withInterceptor(OkHttpClient base) {
    // TODO(issue 4): add dev.headway.okhttp.RateLimitInterceptor once it lands.
    return base.newBuilder().build();
  }
}
