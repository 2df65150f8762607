package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One host, a quota per model ({@code scopeAttribute}): 10 tokens per 10 s each, both spent
 * until 5 s. Thirty callers of model a wait in line for a's window; the first caller of model b
 * is first in line for b's, whose units come back at 5 s, well within its {@code maxWait} of
 * 6 s. The callers of another model's quota are not ahead of it: it waits and goes at 5 s.
 * Virtual time; async acquires on the clock's scheduler.
 */
@Timeout(30)
class LineOfAnotherModelTest {
  static final String CHAT = "https://api.example.com/v1/chat";

  @Test
  void callersWaitingForAnotherModelsQuotaAreNotAheadInLine() throws Exception {
    VirtualClock clock = VirtualClock.create();
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .executor(Runnable::run).jitterSeed(1).maxWait(Duration.ofSeconds(60))
        .scopeAttribute(r -> r.headers().firstValue("x-model").orElse(null)).build();
    RequestInfo a = model("a");
    RequestInfo b = model("b");
    pacer.tryAcquire(a).orElseThrow().complete(200, spent(), null);
    pacer.tryAcquire(b).orElseThrow().complete(200, spent(), null);
    List<CompletableFuture<Permit>> modelA = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      modelA.add(pacer.acquireAsync(a));
    }
    clock.advance(Duration.ofMillis(100));
    assertThat(modelA).as("model a's callers wait").noneMatch(CompletableFuture::isDone);

    CompletableFuture<Permit> first = pacer.acquireAsync(b, Duration.ofSeconds(6));
    clock.advance(Duration.ofMillis(5_000)); // 5.1 s: b's units are back

    assertThat(first.isCompletedExceptionally())
        .as("model b's first caller refused: %s",
            first.handle((p, e) -> String.valueOf(e)).join())
        .isFalse();
    assertThat(first).isDone();
    pacer.close();
  }

  private static RequestInfo model(String model) {
    return new RequestInfo("POST", URI.create(CHAT),
        HttpFields.builder().add("x-model", model).build(), OptionalLong.empty());
  }

  /** 10 tokens per 10 s, none left, back in 5 s. */
  private static HttpFields spent() {
    return HttpFields.builder().add("RateLimit-Policy", "\"tokens\";q=10;w=10")
        .add("RateLimit", "\"tokens\";r=0;t=5").build();
  }
}
