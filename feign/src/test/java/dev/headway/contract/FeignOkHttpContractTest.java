package dev.headway.contract;

import feign.Feign;
import feign.okhttp.OkHttpClient;

/**
 * The contract on a Feign client that sends with Feign's OkHttp client ({@code feign-okhttp})
 * instead of its default: the capability wraps whichever client Feign uses.
 */
class FeignOkHttpContractTest extends FeignContractTest {
  @Override
  Feign.Builder feign() {
    return Feign.builder().client(new OkHttpClient());
  }
}
