/**
 * Headway core: reads rate-limit signals from HTTP responses, keeps quota state per partition
 * and paces outgoing requests. It depends on no HTTP client.
 */
module dev.headway.core {
  // Optional: without Jackson, response bodies are not read for hints (one WARNING says so).
  requires static com.fasterxml.jackson.databind;
  requires static transitive org.jspecify;

  exports dev.headway;
  exports dev.headway.dialect;
  exports dev.headway.store;
  exports dev.headway.internal.store to dev.headway.redis;
  exports dev.headway.internal.adapter to dev.headway.okhttp, dev.headway.jdk, dev.headway.spring,
      dev.headway.spring.webflux, dev.headway.feign, dev.headway.httpclient5;
}
