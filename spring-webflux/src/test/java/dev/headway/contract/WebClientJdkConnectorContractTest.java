package dev.headway.contract;

import dev.headway.Pacer;
import org.springframework.http.client.reactive.JdkClientHttpConnector;

/** The contract on {@code WebClient} with Spring's {@link JdkClientHttpConnector}. */
class WebClientJdkConnectorContractTest extends WebClientContractTest {
  @Override
  Caller caller(Pacer pacer) {
    return caller(pacer, new JdkClientHttpConnector());
  }
}
