package dev.headway.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * A raw HTTP/1.1 server on 127.0.0.1 that answers each request (numbered from 1, in the order
 * they arrive, across connections) as its script says: a {@link Reply} after a delay, or never
 * (the connection stays open and silent: a hanging server). A body-less request per read; every
 * reply has the body {@code ok}. Works with any client (no MockWebServer flavour).
 */
public final class ScriptedServer implements AutoCloseable {
  /**
   * One answer: {@code head} is the status line and fields, each line ending in CRLF, without
   * {@code Content-Length} (added); sent {@code delay} after the request arrived.
   */
  public record Reply(Duration delay, String head) {
    /** A {@code 200 OK} with {@code fields} (each ending in CRLF), sent after {@code delay}. */
    public static Reply ok(Duration delay, String fields) {
      return new Reply(delay, "HTTP/1.1 200 OK\r\n" + fields);
    }
  }

  private final ServerSocket listener;
  private final IntFunction<Optional<Reply>> script;
  private final AtomicInteger requests = new AtomicInteger();
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();

  private ScriptedServer(ServerSocket listener, IntFunction<Optional<Reply>> script) {
    this.listener = listener;
    this.script = script;
  }

  /** Starts a server that answers request {@code n} with {@code script.apply(n)}. */
  public static ScriptedServer start(IntFunction<Optional<Reply>> script) throws IOException {
    ScriptedServer server = new ScriptedServer(
        new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1")), script);
    Thread thread = new Thread(server::accept, "scripted-server");
    thread.setDaemon(true);
    thread.start();
    return server;
  }

  /** Starts a server that reads every request and never answers. */
  public static ScriptedServer hanging() throws IOException {
    return start(n -> Optional.empty());
  }

  /** Returns {@code http://127.0.0.1:PORT} followed by {@code path}. */
  public String url(String path) {
    return "http://127.0.0.1:" + listener.getLocalPort() + path;
  }

  /** Returns how many requests arrived (their heads read). */
  public int requestCount() {
    return requests.get();
  }

  @Override
  public void close() throws IOException {
    listener.close();
    for (Socket socket : sockets) {
      socket.close();
    }
  }

  private void accept() {
    try {
      while (true) {
        Socket socket = listener.accept();
        sockets.add(socket);
        Thread thread = new Thread(() -> serve(socket), "scripted-server-connection");
        thread.setDaemon(true);
        thread.start();
      }
    } catch (IOException e) {
      // closed
    }
  }

  private void serve(Socket socket) {
    try (socket) {
      InputStream in = socket.getInputStream();
      OutputStream out = socket.getOutputStream();
      while (readHead(in)) {
        Optional<Reply> reply = script.apply(requests.incrementAndGet());
        if (reply.isEmpty()) {
          while (in.read() != -1) {
            // never answers; until the client or the test closes the connection
          }
          return;
        }
        Thread.sleep(reply.get().delay().toMillis()); // the server's own slowness
        out.write((reply.get().head() + "Content-Length: 2\r\n\r\nok")
            .getBytes(StandardCharsets.US_ASCII));
        out.flush();
      }
    } catch (IOException | InterruptedException e) {
      // closed
    }
  }

  /** Reads a request's head; false at the end of the stream. */
  private static boolean readHead(InputStream in) throws IOException {
    int matched = 0;
    int b;
    while (matched < 4) {
      b = in.read();
      if (b == -1) {
        return false;
      }
      matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    return true;
  }
}
