package dev.headway.contract;

import dev.headway.Pacer;
import dev.headway.httpclient5.RateLimitExecChainHandler;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.InputStreamEntity;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.apache.hc.core5.http.io.support.ClassicRequestBuilder;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;

/**
 * The contract on Apache HttpClient 5's classic client, built with {@code HttpClients.custom()}
 * and the handler added with {@code addTo}, as the docs say; the caller reads every status with a
 * response handler. A one-shot body is a non-repeatable {@link InputStreamEntity}.
 */
class HttpClient5ContractTest extends AdapterContract {
  private @Nullable CloseableHttpClient client;

  @AfterEach
  void closeClient() throws IOException {
    if (client != null) {
      client.close();
    }
  }

  @Override
  Caller caller(Pacer pacer) {
    CloseableHttpClient built = RateLimitExecChainHandler.create(pacer)
        .addTo(HttpClients.custom()).build();
    client = built;
    return new Caller() {
      @Override
      public Reply send(String method, URI uri, @Nullable String body, boolean oneShot)
          throws IOException {
        ClassicRequestBuilder request = ClassicRequestBuilder.create(method).setUri(uri);
        if (body != null) {
          byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
          request.setEntity(oneShot
              ? new InputStreamEntity(new ByteArrayInputStream(bytes), bytes.length,
                  ContentType.TEXT_PLAIN)
              : new StringEntity(body, ContentType.TEXT_PLAIN));
        }
        return built.execute(request.build(), response -> new Reply(response.getCode(),
            response.getEntity() == null ? ""
                : EntityUtils.toString(response.getEntity(), StandardCharsets.UTF_8)));
      }

      @Override
      public Class<? extends Exception> interrupted() {
        return InterruptedIOException.class;
      }

      @Override
      public boolean interruptFlagKept() {
        return true;
      }
    };
  }
}
