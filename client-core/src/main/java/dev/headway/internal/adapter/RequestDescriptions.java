package dev.headway.internal.adapter;

import dev.headway.HttpFields;
import dev.headway.RequestInfo;
import java.net.URI;
import java.util.OptionalLong;

/**
 * The one rule by which every adapter describes a request to the {@link dev.headway.Pacer}, so
 * that a cost function sees the same {@link RequestInfo} whichever HTTP client sent it: a request
 * without a body has a content length of 0; a body of unknown length has none
 * ({@link OptionalLong#empty()}).
 */
public final class RequestDescriptions {
  private static final OptionalLong NO_BODY = OptionalLong.of(0);

  private RequestDescriptions() {}

  /**
   * Returns the description of a request.
   *
   * @param hasBody whether the request carries a body at all
   * @param bodyLength the body's length in bytes as the HTTP client reports it, negative when
   *     unknown (OkHttp's and the JDK's convention); ignored without a body
   */
  public static RequestInfo describe(String method, URI uri, HttpFields headers, boolean hasBody,
      long bodyLength) {
    OptionalLong length;
    if (!hasBody) {
      length = NO_BODY;
    } else if (bodyLength >= 0) {
      length = OptionalLong.of(bodyLength);
    } else {
      length = OptionalLong.empty();
    }
    return new RequestInfo(method, uri, headers, length);
  }
}
