package dev.headway.okhttp.testing;

import java.io.IOException;
import okhttp3.Headers;
import org.jspecify.annotations.Nullable;

/**
 * What a call ended with: a response (body read and closed) or an exception.
 *
 * @param code the status code, or 0 if the call failed
 * @param headers the response headers (empty if the call failed)
 * @param body the response body (empty if the call failed)
 * @param failure the exception the call failed with, or {@code null}
 */
public record Outcome(int code, Headers headers, String body, @Nullable IOException failure) {
  static Outcome failed(IOException e) {
    return new Outcome(0, Headers.of(), "", e);
  }

  @Override
  public String toString() {
    return failure != null ? "failed: " + failure : code + " " + body;
  }
}
