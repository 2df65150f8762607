package dev.headway.interop;

import java.util.List;

/** The clients the suite drives, in the order of the results table. */
final class Adapters {
  static final List<Adapter> ALL = List.of(
      new OkHttpAdapter(),
      new JdkSendAdapter(),
      new FeignAdapter(),
      new HttpClient5Adapter(),
      new HttpClient5AsyncAdapter(),
      new SpringRestClientAdapter(),
      new WebClientAdapter());

  private Adapters() {}
}
