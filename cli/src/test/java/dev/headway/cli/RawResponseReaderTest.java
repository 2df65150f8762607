package dev.headway.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.SignalParser;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Reading {@code curl -si} output: line endings, folding, several responses, bodies. */
class RawResponseReaderTest {
  private static RawResponse read(String text) throws CliException {
    return RawResponseReader.read(text.getBytes(StandardCharsets.ISO_8859_1));
  }

  @Test
  void readsCrlfAndLfAlike() throws CliException {
    String lf = "HTTP/1.1 429 Too Many Requests\nRetry-After: 20\nRateLimit: \"d\";r=1\n\n{}";

    RawResponse fromLf = read(lf);
    RawResponse fromCrlf = read(Cli.crlf(lf));

    assertThat(fromCrlf.status()).isEqualTo(429);
    assertThat(fromCrlf.fields()).isEqualTo(fromLf.fields());
    assertThat(fromCrlf.fields().values("retry-after")).containsExactly("20");
    assertThat(fromCrlf.fields().values("RateLimit")).containsExactly("\"d\";r=1");
    assertThat(new String(fromCrlf.body(), StandardCharsets.ISO_8859_1)).isEqualTo("{}");
    assertThat(fromCrlf.notes()).isEmpty();
  }

  @Test
  void acceptsHttp2AndHttp3StatusLinesWithoutReason() throws CliException {
    assertThat(read("HTTP/2 429\r\n\r\n").status()).isEqualTo(429);
    assertThat(read("HTTP/2 200 \r\nA: b\r\n").status()).isEqualTo(200);
    assertThat(read("HTTP/3 503\n").status()).isEqualTo(503);
    assertThat(read("HTTP/1.0 301 Moved Permanently\n").status()).isEqualTo(301);
    assertThat(read("http/1.1 429 TOO MANY REQUESTS\n").status()).isEqualTo(429);
  }

  @Test
  void keepsRepeatedFieldsInOrder() throws CliException {
    RawResponse response = read("HTTP/1.1 200 OK\nRateLimit: \"a\";r=1\nratelimit: \"b\";r=2\n");

    assertThat(response.fields().values("RateLimit")).containsExactly("\"a\";r=1", "\"b\";r=2");
  }

  @Test
  void joinsObsoleteFoldedLinesWithOneSpace() throws CliException {
    RawResponse response = read("HTTP/1.1 200 OK\r\nRateLimit-Policy: \"burst\";q=100;w=60,\r\n"
        + "  \t\"daily\";q=1000;w=86400\r\nX: y\r\n\r\n");

    assertThat(response.fields().values("ratelimit-policy"))
        .containsExactly("\"burst\";q=100;w=60, \"daily\";q=1000;w=86400");
    assertThat(response.fields().values("x")).containsExactly("y");
    assertThat(response.notes()).containsExactly(
        "ratelimit-policy: obsolete line folding on line 3 joined with a space");
  }

  @Test
  void explainsTheLastOfSeveralResponses() throws CliException {
    String curl = "HTTP/1.1 100 Continue\r\n\r\n"
        + "HTTP/1.1 301 Moved Permanently\r\nLocation: /b\r\nRateLimit: \"old\";r=1\r\n\r\n"
        + "HTTP/2 429 \r\nretry-after: 7\r\n\r\nbody";

    RawResponse response = read(curl);

    assertThat(response.status()).isEqualTo(429);
    assertThat(response.fields().names()).containsExactly("retry-after");
    assertThat(new String(response.body(), StandardCharsets.ISO_8859_1)).isEqualTo("body");
  }

  @Test
  void aConnectEstablishedHeadBeforeTheResponseIsSkipped() throws CliException {
    RawResponse response = read(
        "HTTP/1.1 200 Connection established\n\nHTTP/2 429\nretry-after: 1\n");

    assertThat(response.status()).isEqualTo(429);
  }

  @Test
  void theBodyIsPassedVerbatimUpToTheParsersLimit() throws CliException {
    byte[] head = "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\n\r\n"
        .getBytes(StandardCharsets.ISO_8859_1);
    byte[] input = Arrays.copyOf(head, head.length + SignalParser.MAX_BODY_BYTES + 100);
    Arrays.fill(input, head.length, input.length, (byte) 0xC3);

    RawResponse response = RawResponseReader.read(input);

    assertThat(response.body()).hasSize(SignalParser.MAX_BODY_BYTES);
    assertThat(response.body()[0]).isEqualTo((byte) 0xC3);
  }

  @Test
  void aBodyThatStartsWithBlankLinesIsKeptWhole() throws CliException {
    RawResponse response = read("HTTP/1.1 429 X\n\n\n{\"retry_after\": 3}\n");

    assertThat(new String(response.body(), StandardCharsets.ISO_8859_1))
        .isEqualTo("\n{\"retry_after\": 3}\n");
  }

  @Test
  void noBlankLineMeansNoBody() throws CliException {
    assertThat(read("HTTP/1.1 200 OK\nA: b").body()).isEmpty();
    assertThat(read("HTTP/1.1 200 OK\nA: b").fields().values("a")).containsExactly("b");
  }

  @Test
  void leadingBlankLinesAndAByteOrderMarkAreSkipped() throws CliException {
    byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
    byte[] rest = "\r\n\nHTTP/1.1 429 X\nRetry-After: 1\n".getBytes(StandardCharsets.US_ASCII);
    byte[] input = new byte[bom.length + rest.length];
    System.arraycopy(bom, 0, input, 0, bom.length);
    System.arraycopy(rest, 0, input, bom.length, rest.length);

    assertThat(RawResponseReader.read(input).status()).isEqualTo(429);
  }

  @Test
  void ignoresLinesThatAreNotFieldLinesWithANote() throws CliException {
    RawResponse response = read("HTTP/1.1 200 OK\nnot a field\nBad Name: v\n: v\n"
        + " fold-without-field\nGood:  v  \n");

    assertThat(response.fields().names()).containsExactly("good");
    assertThat(response.fields().values("good")).containsExactly("v");
    assertThat(response.notes()).containsExactly(
        "input: line 2 is not a field line ('not a field'); ignored",
        "input: line 3 is not a field line ('Bad Name: v'); ignored",
        "input: line 4 is not a field line (': v'); ignored",
        "input: line 5 is a continuation line with no field before it; ignored");
  }

  @Test
  void keepsEveryOctetOfAFieldValue() throws CliException {
    byte[] input = "HTTP/1.1 200 OK\nX-Name: caf\u00e9\u0000\n"
        .getBytes(StandardCharsets.ISO_8859_1);

    assertThat(RawResponseReader.read(input).fields().values("x-name"))
        .containsExactly("caf\u00e9\u0000");
  }

  @Test
  void rejectsInputThatIsNotAResponse() {
    assertThatThrownBy(() -> read("")).isInstanceOf(CliException.class)
        .hasMessageStartingWith("no input");
    assertThatThrownBy(() -> read("\n\r\n  \n")).isInstanceOf(CliException.class)
        .hasMessageStartingWith("no input");
    assertThatThrownBy(() -> read("GET / HTTP/1.1\nHost: x\n"))
        .isInstanceOf(CliException.class)
        .hasMessage("not an HTTP response: expected a status line such as 'HTTP/1.1 429 Too Many"
            + " Requests' but the input starts with 'GET / HTTP/1.1'");
    assertThatThrownBy(() -> read("Retry-After: 5\n")).isInstanceOf(CliException.class)
        .hasMessageContaining("'Retry-After: 5'");
    assertThatThrownBy(() -> read("HTTP/1.1 42 Short\n")).isInstanceOf(CliException.class);
    assertThatThrownBy(() -> read("HTTP/1.1 099 Low\n")).isInstanceOf(CliException.class)
        .hasMessageContaining("099");
    assertThatThrownBy(() -> read("\u001b[2J\u0000garbage")).isInstanceOf(CliException.class)
        .hasMessageContaining("\\x1b[2J\\x00garbage").hasMessageNotContaining("\u001b");
  }
}
