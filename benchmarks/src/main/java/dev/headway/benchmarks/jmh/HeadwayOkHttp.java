package dev.headway.benchmarks.jmh;

import dev.headway.okhttp.RateLimitInterceptor;
import okhttp3.OkHttpClient;

/** How the benchmarks add Headway to an OkHttp client (one place, for when the API moves). */
final class HeadwayOkHttp {
  private HeadwayOkHttp() {}

  /** Returns a client sharing {@code base}'s pools, with Headway's interceptor added. */
  static OkHttpClient withInterceptor(OkHttpClient base) {
    return base.newBuilder().addInterceptor(RateLimitInterceptor.create()).build();
  }
}
