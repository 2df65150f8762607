package dev.headway.contract;

import dev.headway.Pacer;
import dev.headway.jdk.RateLimitedHttpClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * The contract on {@code HttpClient.sendAsync} through {@link RateLimitedHttpClient}, the caller
 * waiting on the future as a user would ({@code get}); failures arrive as the future's cause. An
 * interrupt ends the caller's {@code get} ({@link InterruptedException}, flag cleared) and the
 * call, still waiting for its permit, sends nothing.
 */
class JdkSendAsyncContractTest extends AdapterContract {
  @Override
  Caller caller(Pacer pacer) {
    HttpClient client = RateLimitedHttpClient.wrap(HttpClient.newHttpClient(), pacer);
    return new Caller() {
      @Override
      public Reply send(String method, URI uri, @Nullable String body, boolean oneShot)
          throws Exception {
        HttpResponse<String> response = client.sendAsync(
            JdkSendContractTest.request(method, uri, body, oneShot), BodyHandlers.ofString())
            .get();
        return new Reply(response.statusCode(), response.body());
      }

      @Override
      public Class<? extends Exception> interrupted() {
        return InterruptedException.class;
      }

      @Override
      public boolean interruptFlagKept() {
        return false;
      }

      @Override
      public Throwable cause(Throwable thrown) {
        return thrown instanceof ExecutionException && thrown.getCause() != null
            ? thrown.getCause() : thrown;
      }
    };
  }
}
