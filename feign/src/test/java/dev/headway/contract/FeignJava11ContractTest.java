package dev.headway.contract;

import feign.Feign;
import feign.http2client.Http2Client;

/**
 * The contract on a Feign client that sends with Feign's {@code java.net.http} client
 * ({@code feign-java11}) instead of its default: the capability wraps whichever client Feign
 * uses.
 */
class FeignJava11ContractTest extends FeignContractTest {
  @Override
  Feign.Builder feign() {
    return Feign.builder().client(new Http2Client());
  }
}
