package dev.headway.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A raw HTTP server on 127.0.0.1 whose first connection answers {@code 429} with
 * {@code Retry-After: 1} and one byte of its 24-byte JSON body, then says nothing more (a stalled
 * body), and whose second connection answers {@code 200 ok}. It watches whether the client ever
 * closes the first connection.
 */
public final class StalledBodyServer implements AutoCloseable {
  private final ServerSocket listener;
  private final CountDownLatch firstClosed = new CountDownLatch(1);

  private StalledBodyServer(ServerSocket listener) {
    this.listener = listener;
  }

  /** Starts the server on an ephemeral port of 127.0.0.1. */
  public static StalledBodyServer start() throws IOException {
    StalledBodyServer server =
        new StalledBodyServer(new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1")));
    Thread thread = new Thread(server::serve, "stalled-body-server");
    thread.setDaemon(true);
    thread.start();
    return server;
  }

  /** Returns {@code http://127.0.0.1:PORT}. */
  public String url() {
    return "http://127.0.0.1:" + listener.getLocalPort();
  }

  /** Whether the client closed the stalled 429's connection within {@code timeout}. */
  public boolean firstClosedWithin(Duration timeout) throws InterruptedException {
    return firstClosed.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() throws IOException {
    listener.close();
  }

  private void serve() {
    try {
      Socket first = listener.accept();
      readHead(first.getInputStream());
      OutputStream out = first.getOutputStream();
      out.write(("HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\n"
          + "Content-Type: application/json\r\nContent-Length: 24\r\n\r\n{")
          .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      Thread closer = new Thread(() -> {
        try {
          while (first.getInputStream().read() != -1) {
            // nothing comes; -1 or an exception when the client closes
          }
        } catch (IOException e) {
          // reset by the client: closed too
        }
        firstClosed.countDown();
      }, "stalled-body-watch");
      closer.setDaemon(true);
      closer.start();
      Socket second = listener.accept();
      readHead(second.getInputStream());
      second.getOutputStream().write(("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
          + "Connection: close\r\n\r\nok").getBytes(StandardCharsets.US_ASCII));
      second.getOutputStream().flush();
      second.close();
    } catch (IOException e) {
      // the test fails on what the client saw
    }
  }

  private static void readHead(InputStream in) throws IOException {
    int matched = 0;
    int b;
    while (matched < 4 && (b = in.read()) != -1) {
      matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
    }
  }
}
