package dev.headway.jdk;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Flow;
import org.junit.jupiter.api.Test;

/** Which request bodies may be sent twice: the documented allow-list. */
class ReplayTest {
  private static HttpRequest post(BodyPublisher publisher) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1/")).POST(publisher).build();
  }

  @Test
  void bodiesFromTheJdksRepeatablePublishersAreReplayable() {
    assertThat(Replay.isReplayable(HttpRequest.newBuilder(URI.create("http://x/")).build()))
        .isTrue();
    assertThat(Replay.isReplayable(post(BodyPublishers.noBody()))).isTrue();
    assertThat(Replay.isReplayable(post(BodyPublishers.ofString("a")))).isTrue();
    assertThat(Replay.isReplayable(post(BodyPublishers.ofByteArray(new byte[] {1})))).isTrue();
  }

  @Test
  void theAllowListNamesTheClassesOfThisJdksPublishers() {
    // The JDK's publisher classes are not API. If a JDK renames one, its bodies silently become
    // one-shot (never retried); this test makes that visible on the JDK the build runs on.
    assertThat(List.of(BodyPublishers.noBody(), BodyPublishers.ofString("a"),
            BodyPublishers.ofByteArray(new byte[] {1})))
        .extracting(p -> p.getClass().getName())
        .as("JDK %s", Runtime.version())
        .allSatisfy(name -> assertThat(Replay.JDK_REPLAYABLE).contains(name));
  }

  @Test
  void aBodyOfByteArraysIsNotReplayableUnlessMarked() {
    // ofByteArrays re-iterates its Iterable, which may hand out the same, spent iterator.
    BodyPublisher arrays = BodyPublishers.ofByteArrays(List.of(new byte[1]));

    assertThat(Replay.isReplayable(post(arrays))).isFalse();
    assertThat(Replay.isReplayable(post(RateLimitedHttpClient.replayable(arrays)))).isTrue();
    assertThat(RateLimitedHttpClient.replayable(arrays).contentLength())
        .isEqualTo(arrays.contentLength());
  }

  @Test
  void aFileBodyIsReplayable() throws Exception {
    Path file = java.nio.file.Files.createTempFile("headway", ".txt");
    try {
      assertThat(Replay.isReplayable(post(BodyPublishers.ofFile(file)))).isTrue();
    } finally {
      java.nio.file.Files.delete(file);
    }
  }

  @Test
  void streamsAdaptedPublishersAndUnknownPublishersAreNotReplayable() {
    assertThat(Replay.isReplayable(post(BodyPublishers.ofInputStream(
        () -> new ByteArrayInputStream(new byte[1]))))).isFalse();
    assertThat(Replay.isReplayable(post(BodyPublishers.fromPublisher(
        BodyPublishers.ofString("a"))))).isFalse();
    BodyPublisher own = new BodyPublisher() {
      @Override
      public long contentLength() {
        return -1;
      }

      @Override
      public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
        BodyPublishers.noBody().subscribe(subscriber);
      }
    };
    assertThat(Replay.isReplayable(post(own))).isFalse();
  }
}
