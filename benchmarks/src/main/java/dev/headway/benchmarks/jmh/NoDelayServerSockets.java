package dev.headway.benchmarks.jmh;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import javax.net.ServerSocketFactory;

/**
 * Server sockets whose accepted connections have {@code TCP_NODELAY} set. Without it a loopback
 * server that writes headers and body separately meets the client's delayed ACK (Nagle), and
 * every call takes ~40 ms of nothing.
 */
final class NoDelayServerSockets extends ServerSocketFactory {
  @Override
  public ServerSocket createServerSocket() throws IOException {
    return new NoDelay();
  }

  @Override
  public ServerSocket createServerSocket(int port) throws IOException {
    return new NoDelay(port, 50, null);
  }

  @Override
  public ServerSocket createServerSocket(int port, int backlog) throws IOException {
    return new NoDelay(port, backlog, null);
  }

  @Override
  public ServerSocket createServerSocket(int port, int backlog, InetAddress address)
      throws IOException {
    return new NoDelay(port, backlog, address);
  }

  private static final class NoDelay extends ServerSocket {
    NoDelay() throws IOException {
      super();
    }

    NoDelay(int port, int backlog, InetAddress address) throws IOException {
      super(port, backlog, address);
    }

    @Override
    public Socket accept() throws IOException {
      Socket socket = super.accept();
      socket.setTcpNoDelay(true);
      return socket;
    }
  }
}
