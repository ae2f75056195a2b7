package dev.mcpgate.dynamodb.review;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP/1.1 proxy in front of a real DynamoDB-API server that loses answers: the request of an
 * armed operation is forwarded, the server applies it and answers, and the proxy then closes the
 * client's connection without passing the answer on (a connection cut between the write and its
 * answer). The SDK sees no response and, by its retry policy, sends the request again.
 */
final class LostAnswerProxy implements Closeable {
  private final String host;
  private final int port;
  private final ServerSocket listener;
  private final ConcurrentHashMap<String, AtomicInteger> armed = new ConcurrentHashMap<>();
  private final AtomicInteger lost = new AtomicInteger();
  private final AtomicInteger forwarded = new AtomicInteger();

  LostAnswerProxy(URI upstream) throws IOException {
    this.host = upstream.getHost();
    this.port = upstream.getPort();
    this.listener = new ServerSocket();
    listener.bind(new InetSocketAddress("127.0.0.1", 0));
    Thread acceptor = new Thread(this::accept, "lost-answer-proxy");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  URI endpoint() {
    return URI.create("http://127.0.0.1:" + listener.getLocalPort());
  }

  /** Loses the answer of the next {@code n} requests of {@code operation} (e.g. "PutItem"). */
  void loseNextAnswers(String operation, int n) {
    armed.computeIfAbsent(operation, o -> new AtomicInteger()).addAndGet(n);
  }

  /** How many answers were lost so far. */
  int lost() {
    return lost.get();
  }

  /** How many requests reached the server through the proxy. */
  int forwarded() {
    return forwarded.get();
  }

  private void accept() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        Thread t = new Thread(() -> relay(client), "lost-answer-proxy-link");
        t.setDaemon(true);
        t.start();
      } catch (IOException closed) {
        return;
      }
    }
  }

  private void relay(Socket client) {
    try (client;
        Socket server = new Socket(host, port)) {
      InputStream fromClient = client.getInputStream();
      OutputStream toClient = client.getOutputStream();
      InputStream fromServer = server.getInputStream();
      OutputStream toServer = server.getOutputStream();
      while (true) {
        Message request = Message.read(fromClient);
        if (request == null) {
          return;
        }
        toServer.write(request.bytes);
        toServer.flush();
        forwarded.incrementAndGet();
        Message response = Message.read(fromServer);
        if (response == null) {
          return;
        }
        String target = request.header("x-amz-target");
        String operation = target == null ? "" : target.substring(target.indexOf('.') + 1);
        AtomicInteger left = armed.get(operation);
        if (left != null && left.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0) {
          lost.incrementAndGet();
          return; // the server applied it; its answer is lost with the connection
        }
        toClient.write(response.bytes);
        toClient.flush();
      }
    } catch (IOException e) {
      // the link ends
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
  }

  /** One HTTP/1.1 message with a Content-Length body (what the SDK and dynalite send). */
  private static final class Message {
    final byte[] bytes;
    final String head;

    private Message(byte[] bytes, String head) {
      this.bytes = bytes;
      this.head = head;
    }

    String header(String name) {
      for (String line : head.split("\r\n")) {
        int colon = line.indexOf(':');
        if (colon > 0 && line.substring(0, colon).trim().toLowerCase(Locale.ROOT).equals(name)) {
          return line.substring(colon + 1).trim();
        }
      }
      return null;
    }

    static Message read(InputStream in) throws IOException {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      int matched = 0;
      int b;
      while (matched < 4) {
        b = in.read();
        if (b < 0) {
          return null;
        }
        out.write(b);
        matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
      }
      String head = out.toString(StandardCharsets.ISO_8859_1);
      Message m = new Message(null, head);
      String length = m.header("content-length");
      int n = length == null ? 0 : Integer.parseInt(length);
      byte[] body = in.readNBytes(n);
      if (body.length < n) {
        return null;
      }
      out.write(body);
      return new Message(out.toByteArray(), head);
    }
  }
}
