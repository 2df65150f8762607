package dev.headway.benchmarks.sim;

import dev.headway.HttpFields;
import dev.headway.RequestInfo;
import java.net.URI;
import java.util.OptionalLong;

/**
 * One simulated request as the application makes it: method, path, and for a language-model API
 * the model it names and the tokens it may use (prompt plus {@code max_tokens}, what such an API
 * counts when it admits a request).
 *
 * @param method the HTTP method
 * @param path the path (and query) on {@link #HOST}
 * @param model the model named in the request body, or empty
 * @param tokens the tokens the request costs on a token quota (1 where there is none)
 */
public record SimRequest(String method, String path, String model, long tokens) {
  /** Every simulated request goes to this origin. */
  public static final String HOST = "https://api.example.com";

  /** The request of the single-quota scenarios: {@code GET /v1/items}, one partition. */
  public static final SimRequest DEFAULT = new SimRequest("GET", "/v1/items", "", 1);

  /**
   * The request header that carries {@link #model()} to the client, and the one that carries
   * {@link #tokens()}. What the pacer sees of a request is a {@link RequestInfo} (method, URI,
   * headers, body length); the model and token count live in the body of a real request, so the
   * simulator passes them as headers, where a cost function (and a future scope that reads a
   * request attribute) can find them. No simulated server reads these headers.
   */
  public static final String MODEL_HEADER = "x-sim-model";

  /** See {@link #MODEL_HEADER}. */
  public static final String TOKENS_HEADER = "x-sim-tokens";

  private static final RequestInfo DEFAULT_INFO =
      RequestInfo.get(URI.create(HOST + DEFAULT.path));

  /** Returns a request of one unit with no model. */
  public static SimRequest of(String method, String path) {
    return new SimRequest(method, path, "", 1);
  }

  /** Returns what the pacer sees of this request. */
  public RequestInfo toRequestInfo() {
    if (equals(DEFAULT)) {
      return DEFAULT_INFO;
    }
    HttpFields headers = HttpFields.empty();
    if (!model.isEmpty()) {
      headers = HttpFields.builder().add(MODEL_HEADER, model)
          .add(TOKENS_HEADER, Long.toString(tokens)).build();
    }
    return new RequestInfo(method, URI.create(HOST + path), headers, OptionalLong.empty());
  }
}
