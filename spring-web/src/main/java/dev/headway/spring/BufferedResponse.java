package dev.headway.spring;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpResponse;

/**
 * A response whose first bytes were read ahead: its body is those bytes, then the rest of the
 * original body (if any remains). Closing it closes the original.
 */
final class BufferedResponse implements ClientHttpResponse {
  private final ClientHttpResponse original;
  private final byte[] prefix;
  private final boolean complete;
  private final int limit;
  private @Nullable InputStream body;

  private BufferedResponse(ClientHttpResponse original, byte[] prefix, boolean complete,
      int limit) {
    this.original = original;
    this.prefix = prefix;
    this.complete = complete;
    this.limit = limit;
  }

  /**
   * Reads up to {@code limit} bytes of the body ahead, for the signal parser; the caller still
   * reads the whole body. If reading fails, what was read is kept and the failure is left for the
   * caller to meet when it reads on.
   */
  static BufferedResponse peek(ClientHttpResponse response, int limit) {
    if (response instanceof BufferedResponse buffered && buffered.body == null
        && (buffered.complete || buffered.prefix.length >= limit)) {
      return buffered;
    }
    byte[] read;
    boolean complete;
    try {
      InputStream in = response.getBody();
      read = in.readNBytes(limit + 1);
      complete = read.length <= limit;
    } catch (IOException | RuntimeException e) {
      read = new byte[0];
      complete = false;
    }
    return new BufferedResponse(response, read, complete, limit);
  }

  /**
   * Returns a response to keep while the request waits to retry: a body of at most {@code limit}
   * bytes is read into memory and the original closed, which frees its connection; a longer body
   * (or one that fails to read) stays on its connection.
   */
  static ClientHttpResponse keep(ClientHttpResponse response, int limit) {
    BufferedResponse buffered = peek(response, limit);
    if (!buffered.complete) {
      return buffered;
    }
    Closed closed = new Closed(buffered.original);
    buffered.original.close();
    return new BufferedResponse(closed, buffered.prefix, true, limit);
  }

  /** Returns the bytes read ahead, at most the limit of {@link #peek}. */
  byte[] prefix() {
    return prefix.length > limit ? Arrays.copyOf(prefix, limit) : prefix;
  }

  @Override
  public HttpStatusCode getStatusCode() throws IOException {
    return original.getStatusCode();
  }

  @Override
  public String getStatusText() throws IOException {
    return original.getStatusText();
  }

  @Override
  public HttpHeaders getHeaders() {
    return original.getHeaders();
  }

  @Override
  public synchronized InputStream getBody() throws IOException {
    if (body == null) {
      InputStream head = new ByteArrayInputStream(prefix);
      body = complete ? head : new SequenceInputStream(head, original.getBody());
    }
    return body;
  }

  @Override
  public void close() {
    original.close();
  }

  /** A response's status line and headers, after the response itself was closed. */
  private static final class Closed implements ClientHttpResponse {
    private final HttpStatusCode status;
    private final String statusText;
    private final HttpHeaders headers;

    Closed(ClientHttpResponse response) {
      HttpStatusCode code;
      String text;
      try {
        code = response.getStatusCode();
        text = response.getStatusText();
      } catch (IOException e) {
        throw new IllegalStateException("status was read before", e);
      }
      this.status = code;
      this.statusText = text;
      this.headers = response.getHeaders();
    }

    @Override
    public HttpStatusCode getStatusCode() {
      return status;
    }

    @Override
    public String getStatusText() {
      return statusText;
    }

    @Override
    public HttpHeaders getHeaders() {
      return headers;
    }

    @Override
    public InputStream getBody() {
      return InputStream.nullInputStream();
    }

    @Override
    public void close() {}
  }
}
