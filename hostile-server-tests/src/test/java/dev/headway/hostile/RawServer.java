package dev.headway.hostile;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP/1.1 server on 127.0.0.1 (ephemeral port) that writes whatever bytes its {@link Script}
 * says, however wrong: nothing is checked or fixed on the way out. One thread per connection; every
 * blocking step is bounded ({@link #SAFETY_TIMEOUT}), and {@link #close()} ends everything.
 */
final class RawServer implements AutoCloseable {
  /** The longest anything here blocks, whatever a script or a client does. */
  static final Duration SAFETY_TIMEOUT = Duration.ofSeconds(20);

  /** What the server does with one request. */
  @FunctionalInterface
  interface Script {
    void answer(Exchange exchange) throws IOException, InterruptedException;
  }

  private final ServerSocket serverSocket;
  private final Thread acceptor;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final AtomicInteger requests = new AtomicInteger();
  private final java.util.List<String> requestLines = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final AtomicInteger connections = new AtomicInteger();
  private final CountDownLatch closed = new CountDownLatch(1);
  private volatile Script script;

  private RawServer(Script script) throws IOException {
    this.script = script;
    serverSocket = new ServerSocket();
    serverSocket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 100);
    acceptor = new Thread(this::acceptLoop, "raw-server-accept-" + serverSocket.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  static RawServer start(Script script) throws IOException {
    return new RawServer(script);
  }

  /** Replaces what the server does from the next request on. */
  void script(Script next) {
    this.script = next;
  }

  URI uri(String path) {
    return URI.create("http://127.0.0.1:" + serverSocket.getLocalPort() + path);
  }

  /** Returns the number of request heads read so far. */
  int requests() {
    return requests.get();
  }

  /** Returns the number of requests whose request line contains {@code marker}. */
  long requestsWith(String marker) {
    return requestLines.stream().filter(line -> line.contains(marker)).count();
  }

  /** Returns the number of connections accepted so far. */
  int connectionsAccepted() {
    return connections.get();
  }

  /** Returns the number of connections the clients still hold open. */
  int openConnections() {
    return open.size();
  }

  private void acceptLoop() {
    while (!serverSocket.isClosed()) {
      Socket socket;
      try {
        socket = serverSocket.accept();
      } catch (IOException e) {
        return;
      }
      connections.incrementAndGet();
      open.add(socket);
      Thread worker = new Thread(() -> serve(socket), "raw-server-conn");
      worker.setDaemon(true);
      worker.start();
    }
  }

  private void serve(Socket socket) {
    try (socket) {
      socket.setSoTimeout((int) SAFETY_TIMEOUT.toMillis());
      socket.setTcpNoDelay(true);
      InputStream in = socket.getInputStream();
      OutputStream out = socket.getOutputStream();
      while (!socket.isClosed()) {
        String head = readHead(in);
        if (head == null) {
          return;
        }
        int index = requests.getAndIncrement();
        int eol = head.indexOf('\r');
        requestLines.add(eol < 0 ? head : head.substring(0, eol));
        Exchange exchange = new Exchange(index, head, socket, out);
        script.answer(exchange);
        out.flush();
        if (exchange.closeAfter) {
          socket.shutdownOutput();
          // Wait for the client to close its end (bounded), so that a connection counts as open
          // for exactly as long as the client holds it.
          drainUntilClosed(in);
          return;
        }
      }
    } catch (IOException | InterruptedException e) {
      // The client went away, or the server is closing: the connection ends.
    } finally {
      open.remove(socket);
    }
  }

  private static void drainUntilClosed(InputStream in) throws IOException {
    byte[] sink = new byte[1024];
    try {
      while (in.read(sink) != -1) {
        // Discard: a client may still send (a request it pipelines, a body).
      }
    } catch (SocketTimeoutException | SocketException e) {
      // Bounded by SAFETY_TIMEOUT, or reset by the client: either way it is over.
    }
  }

  /** Reads a request head up to its blank line; null at a clean end of stream. */
  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    while (true) {
      int b = in.read();
      if (b == -1) {
        return head.size() == 0 ? null : head.toString(StandardCharsets.ISO_8859_1);
      }
      head.write(b);
      if (head.size() > 256 * 1024) {
        throw new IOException("request head too long");
      }
      matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
      if (matched == 4) {
        return head.toString(StandardCharsets.ISO_8859_1);
      }
    }
  }

  @Override
  public void close() {
    closed.countDown();
    try {
      serverSocket.close();
    } catch (IOException e) {
      // Closing anyway.
    }
    for (Socket socket : open) {
      try {
        socket.close();
      } catch (IOException e) {
        // Closing anyway.
      }
    }
  }

  /** One request and the raw connection it came on. */
  final class Exchange {
    final int index;
    final String head;
    final Socket socket;
    final OutputStream out;
    boolean closeAfter = true;

    Exchange(int index, String head, Socket socket, OutputStream out) {
      this.index = index;
      this.head = head;
      this.socket = socket;
      this.out = out;
    }

    Exchange write(String text) throws IOException {
      return write(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    Exchange write(byte[] bytes) throws IOException {
      out.write(bytes);
      out.flush();
      return this;
    }

    /** Writes {@code bytes} one at a time, {@code every} apart (bounded by the server's life). */
    Exchange trickle(byte[] bytes, Duration every) throws IOException, InterruptedException {
      for (byte b : bytes) {
        out.write(b);
        out.flush();
        if (closed.await(every.toNanos(), TimeUnit.NANOSECONDS)) {
          return this;
        }
      }
      return this;
    }

    /** Writes {@code chunk} again and again until the client goes away (bounded). */
    Exchange forever(byte[] chunk, Duration every) throws IOException, InterruptedException {
      long deadline = System.nanoTime() + SAFETY_TIMEOUT.toNanos();
      // At least a millisecond apart: "never ends" must not mean "takes every CPU cycle".
      long pause = Math.max(every.toNanos(), TimeUnit.MILLISECONDS.toNanos(1));
      while (System.nanoTime() < deadline) {
        out.write(chunk);
        out.flush();
        if (closed.await(pause, TimeUnit.NANOSECONDS)) {
          return this;
        }
      }
      return this;
    }

    /** Keeps the connection open, silent, until the client closes it (bounded). */
    Exchange hang() throws IOException {
      drainUntilClosed(socket.getInputStream());
      return this;
    }

    /** Cuts the connection at once with a reset. */
    void reset() throws IOException {
      socket.setSoLinger(true, 0);
      socket.close();
    }

    /** Closes the connection at once (FIN). */
    void cut() throws IOException {
      socket.close();
    }
  }
}
